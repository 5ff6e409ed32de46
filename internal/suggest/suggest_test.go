package suggest

import "testing"

func TestNearest(t *testing.T) {
	t.Parallel()
	names := []string{"scheduler_tuning.pct", "scheduler_tuning.ratio", "node.window", "hardware.gpu_model"}
	for _, tc := range []struct{ in, want string }{
		{"scheduler_tuning.pc", "scheduler_tuning.pct"},
		{"sheduler_tuning.pct", "scheduler_tuning.pct"},
		{"Node.Window", "node.window"},
		{"node.windows", "node.window"},
		{"hardware.gpu_modle", "hardware.gpu_model"},
		{"throughput", ""},
		{"nope", ""},
	} {
		if got := Nearest(tc.in, names); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if d := Distance("kitten", "sitting"); d != 3 {
		t.Errorf("Distance(kitten, sitting) = %d, want 3", d)
	}
}
