// Package memo keeps values made once per key: the texts a site or a
// report gives for each of thousands of runs, made of a handful of inputs.
package memo

import (
	"maps"
	"sync"
	"sync/atomic"
)

// Map is a concurrent map from a key to the value made of it, for a small
// set of keys asked for many times: a lookup reads a map without a lock
// (its keys hashed by their type's own function, not as interfaces as a
// sync.Map hashes them), and a new key copies the map. The zero Map is
// empty and ready to use; it must not be copied after first use.
type Map[K comparable, V any] struct {
	mu   sync.Mutex // held while a new key is added
	kept atomic.Pointer[map[K]V]
}

// Get returns the value kept for k, made by mk the first time k is asked
// for (two goroutines asking at once may both make it; one value is kept).
func (m *Map[K, V]) Get(k K, mk func() V) V {
	if p := m.kept.Load(); p != nil {
		if v, ok := (*p)[k]; ok {
			return v
		}
	}
	v := mk()
	m.mu.Lock()
	defer m.mu.Unlock()
	var next map[K]V
	if p := m.kept.Load(); p != nil {
		if kept, ok := (*p)[k]; ok {
			return kept
		}
		next = maps.Clone(*p)
	} else {
		next = map[K]V{}
	}
	next[k] = v
	m.kept.Store(&next)
	return v
}
