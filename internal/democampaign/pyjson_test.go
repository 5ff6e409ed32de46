package democampaign

import (
	"math"
	"testing"
)

// Expected strings are Python 3.11's json.dumps / repr output.
func TestAppendPyFloat(t *testing.T) {
	tenth, fifth := 0.1, 0.2 // variables: constant arithmetic would be exact
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{1, "1.0"},
		{-1, "-1.0"},
		{0.1, "0.1"},
		{tenth + fifth, "0.30000000000000004"},
		{1e-05, "1e-05"},
		{2.5e-05, "2.5e-05"},
		{0.0001, "0.0001"},
		{0.00012345, "0.00012345"},
		{1e-4 - 1e-20, "9.999999999999999e-05"},
		{1e16, "1e+16"},
		{1e22, "1e+22"},
		{1.5e-07, "1.5e-07"},
		{123456789, "123456789.0"},
		{1234567890123456, "1234567890123456.0"},
		{12345678901234567, "1.2345678901234568e+16"},
		{9999999999999998, "9999999999999998.0"},
		{5e-324, "5e-324"},
		{1.5e-323, "1.5e-323"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
		{17961.2, "17961.2"},
		{18042.517203, "18042.517203"},
		{100, "100.0"},
		{1e100, "1e+100"},
		{-2.5e-10, "-2.5e-10"},
		{15910, "15910.0"},
		{0.013451, "0.013451"},
		{29.19003099999827, "29.19003099999827"},
		{1.0 / 3, "0.3333333333333333"},
		{2 / 3e-5, "66666.66666666667"},
		{1.23e-18, "1.23e-18"},
		{math.NaN(), "NaN"},
		{math.Inf(1), "Infinity"},
		{math.Inf(-1), "-Infinity"},
	} {
		if got := string(appendPyFloat(nil, c.v)); got != c.want {
			t.Errorf("appendPyFloat(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestAppendPyString(t *testing.T) {
	got := string(appendPyString(nil, "a\"b\\c\n\r\t\b\f\x01\x7f/<>&é€😀"))
	want := `"a\"b\\c\n\r\t\b\f\u0001\u007f/<>&\u00e9\u20ac\ud83d\ude00"`
	if got != want {
		t.Errorf("appendPyString = %s, want %s", got, want)
	}
}

// The layout json.dump writes: ", " and ": " separators, null for None.
func TestPyJSONLayout(t *testing.T) {
	w := &pyJSON{}
	w.open()
	w.str("a", "x")
	w.optStr("b", "")
	w.int("c", 3)
	w.float("d", 2)
	w.ints("e", []int{1, 2})
	w.floatLists("f", [][]float64{{0.5, 1e-05}, {}})
	w.strs("g", []string{"", "y"})
	w.close()
	want := `{"a": "x", "b": null, "c": 3, "d": 2.0, "e": [1, 2], "f": [[0.5, 1e-05], []], "g": ["", "y"]}`
	if string(w.b) != want {
		t.Errorf("got  %s\nwant %s", w.b, want)
	}
}

// Values numpy 2.x gives for the same inputs.
func TestNumpyHelpers(t *testing.T) {
	s := []float64{1, 2, 3, 4}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"percentile 99", npPercentile(s, 99), 3.97},
		{"percentile 50", npPercentile(s, 50), 2.5},
		{"percentile 100", npPercentile(s, 100), 4},
		{"percentile 0", npPercentile(s, 0), 1},
		{"median even", npMedian(s), 2.5},
		{"median odd", npMedian([]float64{1, 5, 9}), 5},
		{"std", npStd(s), math.Sqrt(1.25)},
		{"mean", npMean(s), 2.5},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	// Pairwise summation agrees with an exact sum on many terms.
	a := make([]float64, 100003)
	for i := range a {
		a[i] = 0.1 * float64(i%7)
	}
	exact := 0.0
	for i := range 7 {
		exact += 0.1 * float64(i) * float64((len(a)-i+6)/7)
	}
	if math.Abs(npSum(a)-exact) > 1e-9 {
		t.Errorf("npSum = %v, want %v", npSum(a), exact)
	}
}
