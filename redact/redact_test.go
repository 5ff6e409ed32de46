package redact

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"strings"
	"testing"
	"unsafe"
)

var salt = []byte("test-salt")

// want computes a token the way the package documents it, independently of
// the code under test: prefix + first 8 hex digits of SHA-256(salt||kind||value).
func want(prefix, kind, value string) string {
	h := sha256.Sum256([]byte(string(salt) + kind + value))
	return prefix + "-" + hex.EncodeToString(h[:])[:8]
}

func ip(v string) string   { return want("ip", "ip", v) }
func host(v string) string { return want("host", "host", v) }

const (
	jwt    = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	hfTok  = "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
	sha64  = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	sha40  = "2b1c0e6a3f9d8e7c6b5a4f3e2d1c0b9a8f7e6d5c"
	random = "Zx8Qm2LpT4vW9rKc7NbY3HdF6GsJ1AeU"
)

func TestText(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"vllm command line",
			"HF_TOKEN=" + hfTok + " vllm serve --model /mnt/models/Qwen3-30B-A3B --host 0.0.0.0 --port 8000 --tensor-parallel-size 2",
			"HF_TOKEN=[redacted] vllm serve --model [path]/Qwen3-30B-A3B --host 0.0.0.0 --port 8000 --tensor-parallel-size 2"},
		{"model=path argument",
			"--model=/data/ckpt/Qwen3-30B-A3B/ --download-dir ~/hf-cache",
			"--model=[path]/Qwen3-30B-A3B --download-dir [path]/hf-cache"},
		{"gpustack worker address with port",
			"worker gpustack-worker-3 registered at 192.168.50.21:10150 (state ready)",
			"worker gpustack-worker-3 registered at " + ip("192.168.50.21") + ":10150 (state ready)"},
		{"url with IPv4 host keeps scheme, port and path",
			"http://10.0.3.17:8000/v1/completions",
			"http://" + ip("10.0.3.17") + ":8000/v1/completions"},
		{"url with cluster-local host",
			"base_url=http://gpu-node-7.cluster.local:30000",
			"base_url=http://" + host("gpu-node-7.cluster.local") + ":30000"},
		{"url with one-label host; localhost stays",
			"http://gpu-node-7:8000/v1 vs http://localhost:8000/v1",
			"http://" + host("gpu-node-7") + ":8000/v1 vs http://localhost:8000/v1"},
		{"url credentials",
			"http://bench:s3cret@10.1.1.1/metrics",
			"http://[redacted]@" + ip("10.1.1.1") + "/metrics"},
		{"url at the end of a sentence",
			"see http://gpu-node-7.",
			"see http://" + host("gpu-node-7") + "."},
		{"internal host names",
			"ran on a100-03.corp and ip-10-0-3-17.ec2.internal; kube svc vllm.bench.svc",
			"ran on " + host("a100-03.corp") + " and " + host("ip-10-0-3-17.ec2.internal") + "; kube svc " + host("vllm.bench.svc")},
		{"IPv6",
			"fe80::1%eth0 and [2001:db8::1]:8000; ::ffff:10.0.0.1 is 10.0.0.1",
			ip("fe80::1") + " and [" + ip("2001:db8::1") + "]:8000; " + ip("10.0.0.1") + " is " + ip("10.0.0.1")},
		{"Chinese text around values",
			"服务器地址为10.0.3.17，端口8000；模型在/mnt/models/Qwen3-30B-A3B中，HF_TOKEN=" + hfTok + "，然后",
			"服务器地址为" + ip("10.0.3.17") + "，端口8000；模型在[path]/Qwen3-30B-A3B中，HF_TOKEN=[redacted]，然后"},
		{"Japanese text around values",
			"ノード gpu-node-7.cluster.local で /home/alice/bench/result.json を保存しました。",
			"ノード " + host("gpu-node-7.cluster.local") + " で [path]/result.json を保存しました。"},
		{"environment forms",
			"docker run -e HF_TOKEN=abc --env NCCL_DEBUG=INFO --env=VLLM_USE_V1=1 bash -c 'export hf_home=/x; CUDA_VISIBLE_DEVICES=0,1,2,3 HOSTNAME=n7 python'",
			"docker run -e HF_TOKEN=[redacted] --env NCCL_DEBUG=[redacted] --env=VLLM_USE_V1=[redacted] bash -c 'export hf_home=[redacted]; CUDA_VISIBLE_DEVICES=[redacted] HOSTNAME=[redacted] python'"},
		{"quoted environment value",
			`OPENAI_API_KEY="sk live key" next`,
			`OPENAI_API_KEY=[redacted] next`},
		{"paths: home directory alone hides the user",
			"/home/alice and /Users/bob/ckpt/model.safetensors",
			"[path] and [path]/model.safetensors"},
		{"paths: scratch, tmp, opt, root; a full stop ends the sentence",
			"wrote /scratch/team/run1/out.jsonl, /tmp/x/y.log and /opt/nvidia/trt/engine.plan; /root/.cache/huggingface.",
			"wrote [path]/out.jsonl, [path]/y.log and [path]/engine.plan; [path]/huggingface."},
		{"windows and UNC paths",
			`C:\Users\alice\models\llama.gguf, D:/bench/out.csv, C:\Users\alice, \\fileserver\share\ckpt\model.safetensors`,
			`[path]/llama.gguf, [path]/out.csv, [path], [path]/model.safetensors`},
		{"file URL is a local path",
			"file:///home/alice/runs/x.json",
			"file://[path]/x.json"},
		{"bearer JWT",
			"Authorization: Bearer " + jwt,
			"Authorization: Bearer [token]"},
		{"bare JWT",
			"token=" + jwt + ".",
			"token=[token]."},
		{"known prefixes",
			"hf " + hfTok + " openai sk-proj-AbCdEfGhIjKlMnOpQrStUv12 gh ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 pat github_pat_11ABCDEFG0123456789_abcdefghijklmnop slack xoxb-123456789012-abcdefghij",
			"hf [token] openai [token] gh [token] pat [token] slack [token]"},
		{"AWS access key",
			"aws_access_key_id: AKIAIOSFODNN7EXAMPLE",
			"aws_access_key_id: [token]"},
		{"generic random token",
			"api key " + random + " expires",
			"api key [token] expires"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(Options{Salt: salt})
			got := r.Text(tt.in)
			if got != tt.want {
				t.Errorf("Text(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			// Redacting twice changes nothing more: the builder may
			// see a value that was already redacted.
			if again := r.Text(got); again != got {
				t.Errorf("Text not idempotent:\n once  %q\n twice %q", got, again)
			}
		})
	}
}

func TestTextUnchanged(t *testing.T) {
	keep := []string{
		"",
		"vllm serve",
		"Qwen/Qwen3-30B-A3B",
		"nvidia/Llama-3_1-Nemotron-Ultra-253B-v1",
		"meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8",
		"0.11.0",
		"1,000/1,000",
		"--host 0.0.0.0 --port 8000",
		"http://localhost:8000/v1 and http://127.0.0.1:8000 and [::1]:8000",
		"https://developer.nvidia.com/cuda-downloads?target_os=Linux&target_arch=x86_64",
		"https://huggingface.co/Qwen/Qwen3-30B-A3B/resolve/" + sha40 + "/config.json",
		"https://example.com/data/home/x.json",
		"sha256:" + sha64,
		strings.ToUpper(sha64),
		"revision " + sha40,
		"6f1c2b3a-9d8e-4f7a-b6c5-d4e3f2a1b0c9",
		"/usr/bin/python3 -m vllm.entrypoints.openai.api_server",
		"models/relative/path.bin and ./data/x",
		"max_num_seqs=256 gpu_memory_utilization=0.9",
		"15:04:05 on 2025-06-01T15:04:05Z; MAC 00:1a:2b:3c:4d:5e; Note:: fine",
		"throughput 1234.5 tok/s, TTFT p99 88 ms",
		"bearer authentication is configured",
		"config.local.yaml",
		"吞吐量提高了 23%（并发 64）",
		"スループットは 1,000 tok/s です",
		"/tmp/ and /home/",
	}
	r := New(Options{Salt: salt})
	for _, s := range keep {
		got := r.Text(s)
		if got != s {
			t.Errorf("Text(%q) = %q, want unchanged", s, got)
			continue
		}
		// The same string, not a copy: the builder redacts every cell
		// of a 100,000-row table and should not allocate for each.
		if s != "" && unsafe.StringData(got) != unsafe.StringData(s) {
			t.Errorf("Text(%q) returned a copy", s)
		}
	}
	if c := r.Counts(); len(c) != 0 {
		t.Errorf("Counts after unchanged texts = %v, want empty", c)
	}
}

func TestField(t *testing.T) {
	tests := []struct {
		field, in, want string
	}{
		{"hardware.node", "gpu-node-7", host("gpu-node-7")},
		{"hardware.node", "GPU-Node-7.", host("gpu-node-7")}, // case and trailing dot ignored
		{"measurement.client_host", "10.0.3.17", ip("10.0.3.17")},
		{"measurement.client_host", "bench-client:9000", host("bench-client") + ":9000"},
		{"measurement.client_host", "0.0.0.0", "0.0.0.0"},
		{"metadata.worker_host", "a100-03", host("a100-03")},
		{"metadata.hostIP", "192.168.1.9", ip("192.168.1.9")},
		{"metadata.nodename", "n7", host("n7")},
		{"metadata.num_nodes", "2", "2"},                                        // a count, not a host
		{"metadata.description", "run on 10.0.0.5", "run on " + ip("10.0.0.5")}, // "ip" inside a word is not a host key
		{"metadata.HF_TOKEN", "anything", "[redacted]"},
		{"metadata.apiKey", "abc", "[redacted]"},
		{"metadata.env", "prod", "[redacted]"},
		{"metadata.host_password", "hunter2", "[redacted]"}, // secret wins over host
		{"metadata.keyboard", "us", "us"},
		{"metadata.secret", "", ""},
		{"runtime.server_args", "--model /mnt/m/Qwen3-8B --api-key " + random, "--model [path]/Qwen3-8B --api-key [token]"},
		{"checkpoint.repository", "Qwen/Qwen3-30B-A3B", "Qwen/Qwen3-30B-A3B"},
		{"checkpoint.revision", sha40, sha40},
		{"runtime.image_digest", "sha256:" + sha64, "sha256:" + sha64},
		{"checkpoint.model_id", "/data/models/Qwen3-30B-A3B", "[path]/Qwen3-30B-A3B"},
		{"runtime.version", "0.11.0", "0.11.0"},
	}
	for _, tt := range tests {
		r := New(Options{Salt: salt})
		if got := r.Field(tt.field, tt.in); got != tt.want {
			t.Errorf("Field(%q, %q) = %q, want %q", tt.field, tt.in, got, tt.want)
		}
	}
}

func TestHashes(t *testing.T) {
	r := New(Options{Salt: salt})
	// The same host maps to the same token in a field and in free text,
	// so a reader still sees that two runs shared a node.
	a := r.Field("hardware.node", "10.0.3.17")
	b := r.Text("curl http://10.0.3.17:8000/health")
	c := r.Text("client on 10.0.3.17")
	if !strings.Contains(b, a) || !strings.Contains(c, a) {
		t.Errorf("one address, different tokens: %q, %q, %q", a, b, c)
	}
	if r.Field("hardware.node", "n1") == r.Field("hardware.node", "n2") {
		t.Error("two hosts, one token")
	}
	// A different salt gives a different token.
	other := New(Options{Salt: []byte("other-salt")})
	if x, y := r.Text("10.0.3.17"), other.Text("10.0.3.17"); x == y {
		t.Errorf("salts differ, tokens equal: %q", x)
	}
	// No salt: New draws one, so two exports do not share tokens.
	if x, y := New(Options{}).Text("10.0.3.17"), New(Options{}).Text("10.0.3.17"); x == y {
		t.Errorf("empty salts gave equal tokens %q: the salt is not random", x)
	}
	// The caller's salt slice is copied, not kept.
	s := []byte("mutable")
	m := New(Options{Salt: s})
	before := m.Text("10.9.9.9")
	s[0] = 'X'
	if after := m.Text("10.9.9.9"); after != before {
		t.Errorf("salt aliased: %q then %q", before, after)
	}
}

func TestCounts(t *testing.T) {
	r := New(Options{Salt: salt})
	r.Text("HF_TOKEN=x CUDA_VISIBLE_DEVICES=0 http://10.0.0.1:8000 192.168.0.2 /home/a/b/c.bin C:\\x\\y.txt " + random)
	r.Text("n7.corp")
	r.Field("hardware.node", "n7")
	r.Field("metadata.password", "x")
	r.Text("nothing here at all, really")
	got := r.Counts()
	exp := map[string]int{"env": 2, "ip": 2, "path": 2, "token": 1, "host": 1, "field": 2}
	if !maps.Equal(got, exp) {
		t.Errorf("Counts = %v, want %v", got, exp)
	}
	// Counts is a copy.
	got["ip"] = 99
	if r.Counts()["ip"] != 2 {
		t.Error("Counts returned the internal map")
	}
}

func TestLooksRandom(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{random, true},
		{"aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7d", true},
		{"Qm9yZ2VzLUxpYnJhcnktMjAyNS0wNi0wMQ_x8Kp2R", true},
		{sha64, false},
		{strings.ToUpper(sha40), false},
		{"Llama-4-Maverick-17B-128E-Instruct-FP8", false},
		{"Llama-3_1-Nemotron-Ultra-253B-v1", false},
		{"DeepSeek-R1-Distill-Qwen-32B-Instruct-AWQ", false},
		{"abcdefghijklmnopqrstuvwxyzabcdefgh", false}, // one class only
	}
	for _, tt := range tests {
		if got := looksRandom(tt.s); got != tt.want {
			t.Errorf("looksRandom(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func BenchmarkTextUnchanged(b *testing.B) {
	r := New(Options{Salt: salt})
	for b.Loop() {
		r.Text("Qwen/Qwen3-30B-A3B finished with status ok")
	}
}
