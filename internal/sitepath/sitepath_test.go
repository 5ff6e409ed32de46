package sitepath

import "testing"

func TestPaths(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ got, want string }{
		{InLang("ja", Run("3274ca17b9aa")), "ja/run/3274ca17b9aa.html"},
		{InLang("es-419", Case("qwen3-batch")), "es-419/case/qwen3-batch.html"},
		{Report("qwen3-batch", "en"), "reports/qwen3-batch/qwen3-batch.en.html"},
		{ID("a/b"), "id-" + ID("a/b")[3:]},
		{ID(".hidden"), ID(".hidden")},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
	// An id that cannot name a file is replaced by a digest, the same each time.
	for _, id := range []string{"a/b", ".x", "", "名前", "a b"} {
		if Plain(id) || ID(id) == id || len(ID(id)) != len("id-")+16 {
			t.Errorf("ID(%q) = %q", id, ID(id))
		}
	}
	if !Plain("node-run-1_v2.0") || ID("node-run-1_v2.0") != "node-run-1_v2.0" {
		t.Error("a plain id is not kept")
	}
}
