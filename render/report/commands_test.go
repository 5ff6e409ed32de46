package report

import (
	"testing"

	"github.com/benchledger/benchledger/locales"
)

// TestCommandsRecorded: a configuration whose runs benchledger record
// ingested shows the command as it ran (quoted word by word); otherwise,
// or when its runs ran different commands, the one rebuilt from provenance.
func TestCommandsRecorded(t *testing.T) {
	t.Parallel()
	base := map[string]string{"measurement.client": "vllm bench serve", "checkpoint.repository": "Qwen/Qwen3-8B", "workload.request_count": "100"}
	with := func(cmd string) runMeta {
		eff := map[string]string{"metadata.record.command": cmd}
		for k, v := range base {
			eff[k] = v
		}
		return runMeta{id: "r", eff: eff}
	}
	recorded := "vllm bench serve --model Qwen/Qwen3-8B --num-prompts 100 --label '$(whoami)'"
	for _, lang := range []string{"en", "zh", "ja", "es-419"} {
		l := locales.MustMatch(lang)
		tests := []struct {
			name  string
			runs  []runMeta
			label string
			value string
		}{
			{"recorded", []runMeta{with(recorded), with(recorded)}, l.T("method.client_command_recorded"), recorded},
			{"not recorded", []runMeta{{id: "r", eff: base}}, l.T("method.client_command"), "vllm bench serve --model Qwen/Qwen3-8B --num-prompts 100 --save-result --save-detailed"},
			{"runs differ", []runMeta{with(recorded), with(recorded + " --seed 2")}, l.T("method.client_command"), "vllm bench serve --model Qwen/Qwen3-8B --num-prompts 100 --save-result --save-detailed"},
		}
		for _, tt := range tests {
			items := commands(l, tt.runs)
			cli, note := items[1], items[2].Value
			if cli.Label != tt.label || cli.Value != tt.value || !cli.Code {
				t.Errorf("%s %s: %+v, want %q %q", lang, tt.name, cli, tt.label, tt.value)
			}
			// The note says how the lines were made: rebuilt, or run.
			if wantNote := l.T("method.command_note"); tt.name == "recorded" && note == wantNote || tt.name != "recorded" && note != wantNote {
				t.Errorf("%s %s: note %q", lang, tt.name, note)
			}
		}
	}
}
