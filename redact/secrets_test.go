package redact

import (
	"strings"
	"testing"
)

// TestSecretCatalogue is docs/redaction.md's "Secrets" table, case by case
// (issue 17, hole 4): each secret form is gone, and the text around it
// stays.
func TestSecretCatalogue(t *testing.T) {
	t.Parallel()
	user := want("user", "user", "alice")
	tests := []struct {
		name, in, want, gone string
	}{
		{"flag with =", "vllm serve m --api-key=s3cr3t-x --port 8000", "vllm serve m --api-key=[redacted] --port 8000", "s3cr3t-x"},
		{"flag with space", "vllm serve m --api-key s3cr3t-x --port 8000", "vllm serve m --api-key [redacted] --port 8000", "s3cr3t-x"},
		{"password flag", "mysql --password hunter2 -h db", "mysql --password [redacted] -h db", "hunter2"},
		{"hf token flag", "huggingface-cli login --token abc", "huggingface-cli login --token [redacted]", "abc"},
		{"single dash", "tool -password hunter2", "tool -password [redacted]", "hunter2"},
		{"key=value", "connect password=hunter2 user=bob", "connect password=[redacted] user=bob", "hunter2"},
		{"aws secret", "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key=[redacted]", "wJalrXUtnFEMI"},
		{"yaml key", `api_key: "abc123"`, `api_key: "[redacted]"`, "abc123"},
		{"json key", `{"client_secret": "abc123"}`, `{"client_secret": "[redacted]"}`, "abc123"},
		{"azure account key", "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=abc+def==;", "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=[redacted];", "abc+def"},
		{"basic auth header", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [token]", "dXNlcjpwYXNzd29yZA"},
		{"token auth header", "Authorization: Token 9f8e7d6c5b4a", "Authorization: Token [token]", "9f8e7d6c5b4a"},
		{"URL query secret", "curl https://api.example.com/v1?api_key=abc123&model=x", "curl https://api.example.com/v1?api_key=[redacted]&model=x", "abc123"},
		{"URL credentials", "https://bob:pw@example.com/x", "https://[redacted]@example.com/x", "pw@"},
		{"slack webhook", "notify https://hooks.slack.com/services/T000/B000/XXXXsecret done", "notify https://hooks.slack.com/services/[redacted] done", "XXXXsecret"},
		{"discord webhook", "https://discord.com/api/webhooks/123/tok?wait=1", "https://discord.com/api/webhooks/[redacted]?wait=1", "tok"},
		{"e-mail", "contact alice@example.com today", "contact " + user + "@" + host("example.com") + " today", "alice"},
		{"user@host", "ssh alice@gpu7 and go", "ssh " + user + "@" + host("gpu7") + " and go", "alice"},
		{"PEM key", "k=-----BEGIN PRIVATE KEY-----\nMIIEv\n-----END PRIVATE KEY----- ok", "k=[redacted] ok", "MIIEv"},
		{"sentence end", "the password=hunter2.", "the password=[redacted].", "hunter2"},
	}
	for _, tc := range tests {
		r := New(Options{Salt: salt})
		got := r.Text(tc.in)
		if got != tc.want || strings.Contains(got, tc.gone) {
			t.Errorf("%s: Text(%q)\n got %q\nwant %q", tc.name, tc.in, got, tc.want)
		}
		if again := r.Text(got); again != got {
			t.Errorf("%s: not idempotent: %q then %q", tc.name, got, again)
		}
	}
	// What must stay: counts are not secrets, prose is not a credential.
	for _, keep := range []string{
		"--max-num-batched-tokens 8192 --max-tokens 128 --num-speculative-tokens 5",
		"--kv-cache-dtype fp8 --tokenizer Qwen/Qwen3-8B",
		"basic usage of the token budget",
		"key: value",
	} {
		if got := New(Options{Salt: salt}).Text(keep); got != keep {
			t.Errorf("Text(%q) = %q, want it unchanged", keep, got)
		}
	}
}
