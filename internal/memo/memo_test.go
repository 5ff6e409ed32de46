package memo

import (
	"sync"
	"testing"
)

// TestGet: a key's value is made once and given to every later caller,
// each key its own, from goroutines at once.
func TestGet(t *testing.T) {
	var m Map[[2]string, string]
	var mu sync.Mutex
	made := map[[2]string]int{}
	get := func(a, b string) string {
		return m.Get([2]string{a, b}, func() string {
			mu.Lock()
			made[[2]string{a, b}]++
			mu.Unlock()
			return a + "+" + b
		})
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 100 {
				if got, want := get("x", string(rune('a'+j%3))), "x+"+string(rune('a'+j%3)); got != want {
					t.Errorf("goroutine %d: %q, want %q", i, got, want)
				}
			}
		})
	}
	wg.Wait()
	if len(made) != 3 {
		t.Errorf("made %v", made)
	}
	n := made[[2]string{"x", "a"}]
	if get("x", "a"); made[[2]string{"x", "a"}] != n {
		t.Error("a kept value made again")
	}
}
