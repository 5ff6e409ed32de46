package main

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchledger/benchledger/locales"
)

// fakeClient writes a script that behaves like vllm bench serve: it prints
// a console block, copies a real vLLM result file to --result-dir/
// --result-filename, and exits with $STATUS (0 unless given).
func fakeClient(t *testing.T, dir string) string {
	t.Helper()
	sample, err := filepath.Abs(filepath.Join("..", "..", "ingest", "format", "vllmjson", "testdata", "inf_rate_string.json"))
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "fake-bench.sh")
	body := `#!/bin/sh
out=. name=result.json status=${1:-0}
while [ $# -gt 0 ]; do
  case "$1" in
    --result-dir) out=$2; shift ;;
    --result-filename) name=$2; shift ;;
    --sleep) trap 'kill $pid; echo interrupted; exit 130' INT; sleep $2 & pid=$!; : > sleeping; wait; shift ;;
  esac
  shift
done
echo "============ Serving Benchmark Result ============"
echo "Successful requests:                     9"
mkdir -p "$out" && cp '` + sample + `' "$out/$name"
echo "client log line" > client.log
exit $status
`
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return script
}

func TestRecord(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status string // the client's exit status
		code   int
		runs   int
		stderr string
	}{
		{"success", "0", exitOK, 1, "record: the client exited with status 0"},
		{"no --", "0", exitOK, 1, "record: the client exited with status 0"},
		{"client fails", "3", exitError, 0, "the client exited with status 3 after"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			work := t.TempDir()
			db := filepath.Join(t.TempDir(), "a.db")
			client := fakeClient(t, work)
			vars := map[string]string{"PATH": stubNvidiaSMI(t, "telegraf-rtx-4000-sff-ada-v13.xml")}
			args := []string{"record", "--db", db, "-C", work, "--set", "measurement.notes=recorded", "--"}
			if tt.name == "no --" {
				// The client's flags (--result-dir) are its own, not record's.
				args = args[:len(args)-1]
			}
			args = append(args, client, tt.status, "--result-dir", "out dir", "--result-filename", "run 1.json")
			r := blEnv(t, vars, args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.stderr) {
				t.Fatalf("want exit %d and %q: %v", tt.code, tt.stderr, r)
			}
			if !strings.Contains(r.stdout, "Serving Benchmark Result") {
				t.Errorf("the client's output did not pass through: %v", r)
			}
			ids := strings.Fields(bl(t, "runs", "--db", db, "-q").stdout)
			if len(ids) != tt.runs {
				t.Fatalf("%d runs archived, want %d", len(ids), tt.runs)
			}
			// The console log is archived whatever the client did.
			logSHA := ""
			if _, after, ok := strings.Cut(r.stderr, "blob "); ok {
				logSHA = strings.TrimRight(strings.Fields(after)[0], ");")
			}
			if len(logSHA) != 64 {
				t.Fatalf("no log blob named: %s", r.stderr)
			}
			if tt.runs == 0 {
				return
			}
			show := bl(t, "show", "--db", db, ids[0])
			for _, want := range [][]string{
				{"metadata.record.command", "manifest", client, "'out dir'", "'run 1.json'", "[captured]"},
				{"measurement.notes", "cli", "recorded"},
				{"hardware.gpu_model", "NVIDIA RTX 4000 SFF Ada Generation", "[captured]"},
				{"command", client, "--result-dir 'out dir' --result-filename 'run 1.json'"},
				{"ran", "exit status 0; console log blob " + logSHA},
			} {
				if !hasLine(show.stdout, want...) {
					t.Errorf("show lacks a line with %q:\n%s", want, show.stdout)
				}
			}
			var doc struct {
				Captures []struct {
					Record struct {
						Command []string
						Results []string
						Exit    int
					}
				}
			}
			js := bl(t, "show", "--db", db, "--json", ids[0])
			if err := json.Unmarshal([]byte(js.stdout), &doc); err != nil || len(doc.Captures) != 1 {
				t.Fatalf("%v: %s", err, js.stdout)
			}
			rec := doc.Captures[0].Record
			if len(rec.Command) != 6 || rec.Command[4] != "--result-filename" || len(rec.Results) != 1 || rec.Results[0] != "out dir/run 1.json" {
				t.Errorf("record = %+v (client.log is not a result)", rec)
			}
			if tt.name != "success" {
				return
			}
			// The site's run page shows the command as it ran, under a
			// label in the page's language (not the field's key).
			site := filepath.Join(t.TempDir(), "site")
			if r := bl(t, "site", "--db", db, "--out", site, "--lang", "en,ja"); r.code != 0 {
				t.Fatal(r)
			}
			for _, lang := range []string{"en", "ja"} {
				page, err := os.ReadFile(filepath.Join(site, lang, "run", ids[0][:12]+".html"))
				if err != nil {
					t.Fatal(err)
				}
				label := locales.MustMatch(lang).FieldLabel("metadata.record.command")
				cmd := html.EscapeString(client + " 0 --result-dir 'out dir' --result-filename 'run 1.json'")
				if label == "metadata.record.command" || !bytes.Contains(page, []byte(html.EscapeString(label))) || !bytes.Contains(page, []byte(cmd)) {
					t.Errorf("%s run page lacks %q with %q", lang, label, cmd)
				}
			}
		})
	}
}

// TestRecordChangedDuringRun: nvidia-smi reports another GPU after the
// run than before; the model is then not established, and the change is
// said.
func TestRecordChangedDuringRun(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	db := filepath.Join(t.TempDir(), "a.db")
	fx := func(name string) string {
		p, _ := filepath.Abs(filepath.Join("..", "..", "capture", "testdata", "nvidia-smi", name))
		return p
	}
	bin := t.TempDir()
	state := filepath.Join(bin, "calls")
	smi := "#!/bin/sh\nif [ -e '" + state + "' ]; then cat '" + fx("telegraf-a100-sxm4-v12.xml") + "'; else touch '" + state + "'; cat '" + fx("telegraf-rtx-4000-sff-ada-v13.xml") + "'; fi\n"
	if err := os.WriteFile(filepath.Join(bin, "nvidia-smi"), []byte(smi), 0o755); err != nil {
		t.Fatal(err)
	}
	r := blEnv(t, map[string]string{"PATH": bin}, "record", "--db", db, "-C", work, "--", fakeClient(t, work), "0", "--result-dir", "out")
	if r.code != exitOK || !strings.Contains(r.stderr, `record: changed during the run: hardware.gpu_model: "NVIDIA RTX 4000 SFF Ada Generation" before the run, "NVIDIA A100-SXM4-80GB" after`) {
		t.Fatal(r)
	}
	id := strings.Fields(bl(t, "runs", "--db", db, "-q").stdout)[0]
	show := bl(t, "show", "--db", db, id).stdout
	if !hasLine(show, "hardware.gpu_model", "(not established)", "changed during the run") || hasLine(show, "hardware.gpu_model", "manifest") {
		t.Errorf("show:\n%s", show)
	}
}

// TestRecordInterrupted: Ctrl-C during the client's run ends it; its log
// is archived and nothing is ingested.
func TestRecordInterrupted(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	db := filepath.Join(t.TempDir(), "a.db")
	// Ctrl-C once the client sleeps (it says so with a file): a fixed
	// delay could end the run before the client started on a busy machine.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			if _, err := os.Stat(filepath.Join(work, "sleeping")); err == nil {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"record", "--db", db, "-C", work, "--", fakeClient(t, work), "0", "--sleep", "30", "--result-dir", "out"},
		env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }})
	if code != exitInterrupted || !strings.Contains(errb.String(), "record: interrupted after") || !strings.Contains(errb.String(), "the console log is archived (blob ") || !strings.Contains(out.String(), "interrupted") {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	if ids := strings.Fields(bl(t, "runs", "--db", db, "-q").stdout); len(ids) != 0 {
		t.Errorf("runs archived after an interrupt: %v", ids)
	}
}
