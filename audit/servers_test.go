package audit

import (
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format/sglang"
)

func TestServerVersions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, extra string
		want        string // "" for no finding
	}{
		{"one version", `{"prefill[0]":"0.5.2","decode[0]":"0.5.2"}`, ""},
		{"two versions", `{"prefill[0]":"0.5.1","decode[0]":"0.5.2","decode[1]":"0.5.2"}`, "prefill[0] 0.5.1, decode[0] 0.5.2, decode[1] 0.5.2"},
		{"a server states none", `{"prefill[0]":"","decode[0]":"0.5.2"}`, ""},
		{"not an object", `"x"`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fs := serverVersions(&benchrun.Run{Extra: map[string]string{sglang.ServerVersionsKey: tc.extra}})
			sayable(t, fs)
			switch {
			case tc.want == "" && len(fs) != 0:
				t.Errorf("findings %+v, want none", fs)
			case tc.want != "" && (len(fs) != 1 || fs[0].Check != CheckServerVersions || fs[0].Severity != Warn || !strings.Contains(fs[0].Message, tc.want)):
				t.Errorf("findings %+v, want one naming %q", fs, tc.want)
			}
		})
	}
}
