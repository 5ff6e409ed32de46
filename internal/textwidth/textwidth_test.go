package textwidth

import "testing"

func TestOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"abc", 3},
		{"出力スループット", 16},
		{"처리량", 6},
		{"（株）", 6},
		{"Versión", 7},
		{"「」", 4},
	} {
		if got := Of(tc.s); got != tc.want {
			t.Errorf("Of(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
}
