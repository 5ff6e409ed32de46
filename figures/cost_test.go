package figures

import (
	"math"
	"testing"
)

func TestEstimateCost(t *testing.T) {
	t.Parallel()
	p := Price{PerGPUHour: 2.5, Currency: "USD", Date: "2026-08-01"}
	// 8 GPUs at 2.5/h = 20/h; 10,000 tok/s = 36e6 tok/h: 20/36 per million.
	c, ok := EstimateCost(p, 8, 10000)
	if !ok || math.Abs(c.PerMillionOutputTokens-20.0/36) > 1e-12 || !c.Estimate || c.Formula == "" || c.GPUs != 8 || c.Price != p {
		t.Errorf("%+v %v", c, ok)
	}
	if _, ok := EstimateCost(p, 0, 10000); ok {
		t.Error("cost without a GPU count")
	}
	if _, ok := EstimateCost(p, 8, math.NaN()); ok {
		t.Error("cost without a throughput")
	}
	if err := p.Check(); err != nil {
		t.Error(err)
	}
	for _, bad := range []Price{{PerGPUHour: 0, Currency: "USD", Date: "2026-08-01"}, {PerGPUHour: 1, Currency: "usd", Date: "2026-08-01"},
		{PerGPUHour: 1, Currency: "USD", Date: "August"}} {
		if bad.Check() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestPerGPU(t *testing.T) {
	t.Parallel()
	f := RunFigures{OutputThroughput: 1000, GPUs: GPUsOf(map[string]string{"hardware.gpu_count": "4"})}
	m, _ := ParseMetric("output_throughput_per_gpu")
	if got := m.Of(&f); got != 250 || m.Unit() != "tok/s/GPU" || m.Metric.Direction != HigherIsBetter {
		t.Errorf("per GPU %v %s", got, m.Unit())
	}
	f.GPUs = GPUsOf(map[string]string{"hardware.gpu_count": "four"})
	if !math.IsNaN(m.Of(&f)) {
		t.Error("per GPU without a count")
	}
	if n := NodeGPUs([]map[string]string{{"hardware.gpu_count": "1"}, {"hardware.gpu_count": "1"}}); n != 2 {
		t.Errorf("node GPUs %v", n)
	}
	if n := NodeGPUs([]map[string]string{{"hardware.gpu_count": "1"}, {}}); n != 0 {
		t.Errorf("node GPUs with a replica unknown %v", n)
	}
}
