package llmperf

import (
	"slices"
	"testing"
)

func TestLLMPerfPythonCounts(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []llmperfPyCount
		bad  bool
	}{
		{"{-100.0: 49}", []llmperfPyCount{{"-100", 49}}, false},
		{"{}", nil, false},
		{"{429.0: np.int64(3), 500.0: np.int64(1)}", []llmperfPyCount{{"429", 3}, {"500", 1}}, false},
		{"{np.float64(429.0): np.int64(2)}", []llmperfPyCount{{"429", 2}}, false},
		{"{'rate_limit': 2}", []llmperfPyCount{{"rate_limit", 2}}, false},
		{"{429.0: 1.5}", nil, true},
		{"{429.0 3}", nil, true},
		{"429: 3", nil, true},
		{"{np.int64(3}", nil, true},
	} {
		got, err := llmperfPyCounts(c.in)
		if (err != nil) != c.bad || (!c.bad && !slices.Equal(got, c.want)) {
			t.Errorf("%q: got %v, %v", c.in, got, err)
		}
	}
}
