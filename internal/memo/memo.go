// Package memo keeps values made once per key: the texts a site or a
// report gives for each of thousands of runs, made of a handful of inputs.
package memo

import "sync"

// Map is a concurrent map from a key to the value made of it. The zero Map
// is empty and ready to use; it must not be copied after first use.
type Map[K comparable, V any] struct {
	m sync.Map
}

// Get returns the value kept for k, made by make the first time k is asked
// for (two goroutines asking at once may both make it; one value is kept).
func (m *Map[K, V]) Get(k K, make func() V) V {
	if v, ok := m.m.Load(k); ok {
		return v.(V)
	}
	v, _ := m.m.LoadOrStore(k, make())
	return v.(V)
}
