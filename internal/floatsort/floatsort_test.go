package floatsort

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortIsSlicesSort compares Sort with slices.Sort bit for bit, on
// samples of every length up to past the merged limit: latencies, values
// of both signs with repeats and zeros, infinities, and samples with a NaN
// or a -0 (slices.Sort's own).
func TestSortIsSlicesSort(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	kinds := map[string]func(i int) float64{
		"latencies": func(int) float64 { return 0.2 + r.Float64()*0.7 },
		"signed repeats": func(int) float64 {
			return float64(r.IntN(21)-10) / 4
		},
		"wide": func(int) float64 {
			return math.Ldexp(r.Float64()-0.5, r.IntN(2000)-1000)
		},
		"infinities": func(i int) float64 {
			switch i % 5 {
			case 0:
				return math.Inf(1)
			case 1:
				return math.Inf(-1)
			}
			return r.NormFloat64()
		},
		"a NaN": func(i int) float64 {
			if i == 3 {
				return math.NaN()
			}
			return r.NormFloat64()
		},
		"a -0": func(i int) float64 {
			if i%7 == 2 {
				return math.Copysign(0, -1)
			}
			return float64(r.IntN(3))
		},
	}
	for name, gen := range kinds {
		for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 99, 100, 101, 255, 257, maxMerged - 1, maxMerged, maxMerged + 1, 1000} {
			v := make([]float64, n)
			for i := range v {
				v[i] = gen(i)
			}
			want := slices.Clone(v)
			slices.Sort(want)
			Sort(v)
			if !sameBits(v, want) {
				t.Errorf("%s, %d values: Sort gave %v, slices.Sort %v", name, n, v, want)
			}
		}
	}
}

// TestMergeSort checks the merge sort alone on keys: every length up to
// the limit, from random, sorted and reversed keys, with duplicates.
func TestMergeSort(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= maxMerged; n++ {
		for _, order := range []string{"random", "sorted", "reversed"} {
			a := make([]uint64, n)
			for i := range a {
				a[i] = r.Uint64N(uint64(n/2 + 1))
			}
			switch order {
			case "sorted":
				slices.Sort(a)
			case "reversed":
				slices.Sort(a)
				slices.Reverse(a)
			}
			want := slices.Clone(a)
			slices.Sort(want)
			if got := mergeSort(a, make([]uint64, n)); !slices.Equal(got, want) {
				t.Fatalf("%s, %d keys: %v, want %v", order, n, got, want)
			}
		}
	}
}

// TestKey checks key keeps the order of floats and unkey undoes it.
func TestKey(t *testing.T) {
	t.Parallel()
	vals := []float64{math.Inf(-1), -math.MaxFloat64, -1, -math.SmallestNonzeroFloat64, 0, math.SmallestNonzeroFloat64, 1, math.MaxFloat64, math.Inf(1)}
	for i, f := range vals {
		b := math.Float64bits(f)
		if unkey(key(b)) != b {
			t.Errorf("unkey(key(%v)) is not %v", f, f)
		}
		if i > 0 && key(math.Float64bits(vals[i-1])) >= key(b) {
			t.Errorf("key(%v) >= key(%v)", vals[i-1], f)
		}
	}
}

func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

func benchSort(b *testing.B, sort func([]float64)) {
	r := rand.New(rand.NewPCG(5, 6))
	src := make([][]float64, 64)
	for i := range src {
		src[i] = make([]float64, 100)
		for j := range src[i] {
			src[i][j] = 0.2 + r.Float64()*0.7
		}
	}
	v := make([]float64, 100)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		copy(v, src[i%len(src)])
		sort(v)
	}
}

// BenchmarkSort100 against BenchmarkSlicesSort100: a hundred latencies.
func BenchmarkSort100(b *testing.B)       { benchSort(b, Sort) }
func BenchmarkSlicesSort100(b *testing.B) { benchSort(b, slices.Sort[[]float64]) }
