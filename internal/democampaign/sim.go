package democampaign

import "math"

// trace is one simulated run before fitting: client-side times in seconds
// from the moment the client created its first request task.
type trace struct {
	arrival []float64   // task created (vLLM's request_arrival_time)
	send    []float64   // request sent, after the client semaphore (start_time)
	recv    [][]float64 // receipt of each streamed chunk, one chunk per token
}

// simulate plays a client and a vLLM-like engine against each other.
//
// Client: vLLM creates every request task at once (request rate inf), then
// the tasks pass an asyncio semaphore of MaxConcurrency in dispatch order;
// a queued request is sent when an earlier one completes.
//
// Server: a single-threaded front end (HTTP, chat template, tokenisation)
// hands requests to the engine in arrival order. Each engine step serves
// every running request one decode token first, then spends what is left of
// the token budget on prefill (chunked) of waiting requests while a sequence
// slot is free; a request whose prefill completes emits its first token at
// the end of that step. Step time is linear in the work it does.
//
// dispatch is the client's event-loop time to start one request (build the
// payload, open the connection): it spreads the sends, and it is the knob
// fit turns to give the median its place in the window.
//
// Products that feed a sum are wrapped in float64(): an explicit conversion
// stops the compiler from fusing them into FMA instructions (it does on
// arm64, and on amd64 with GOAMD64=v3), so every platform writes the same
// bytes.
func simulate(sp *RunSpec, dispatch float64) *trace {
	c, s := &sp.Client, &sp.Server
	n := c.Requests
	tr := &trace{
		arrival: make([]float64, n),
		send:    make([]float64, n),
		recv:    make([][]float64, n),
	}
	recvBuf := make([]float64, n*c.OutputLen)
	for i := range tr.recv {
		tr.recv[i] = recvBuf[i*c.OutputLen : i*c.OutputLen : (i+1)*c.OutputLen]
	}

	// Task creation: the generator loop never awaits, so all tasks exist
	// before the first one runs.
	t := 0.0
	for i := 0; i < n; i++ {
		tr.arrival[i] = t
		t += 8e-6 + float64(10e-6*noise(sp.Seed, streamCreate, i, 0))
	}
	loopFree := t + 300e-6 // event loop starts running the tasks

	limit := c.MaxConcurrency
	if limit <= 0 || limit > n {
		limit = n
	}
	// send sends the next request at or after `at`; the event loop runs one
	// task at a time, so sends are serialised.
	engineArr := make([]float64, n) // when the engine may schedule request i
	feFree := 0.0
	nextSend := 0
	send := func(at float64) {
		i := nextSend
		nextSend++
		st := math.Max(at, loopFree) + float64(dispatch*(0.7+float64(0.6*noise(sp.Seed, streamDispatch, i, 0))))
		loopFree = st
		tr.send[i] = st
		arr := st + 150e-6 + float64(100e-6*noise(sp.Seed, streamNet, i, 0))
		feFree = math.Max(arr, feFree) + float64(s.FrontendPerRequest*(0.8+float64(0.4*noise(sp.Seed, streamFrontend, i, 0))))
		engineArr[i] = feFree
	}
	for nextSend < limit {
		send(0)
	}

	type seq struct {
		id        int
		prefilled int // prompt tokens prefilled so far
		emitted   int // tokens streamed so far
	}
	var running []*seq // FCFS, as vLLM's scheduler keeps them
	var emit []*seq    // requests producing a token in the current step
	waitNext := 0      // next request (dispatch order) not yet in the engine
	now := 0.0
	step := 0
	done := 0
	for done < n {
		// Idle engine: wait for the next request to reach it.
		if len(running) == 0 && waitNext < nextSend && engineArr[waitNext] > now {
			now = engineArr[waitNext]
		}
		budget := s.MaxBatchedTokens
		decode, prefill := 0, 0
		emit = emit[:0]
		for _, q := range running {
			if budget == 0 {
				break
			}
			if in := c.inputLen(q.id); q.prefilled < in {
				k := min(budget, in-q.prefilled)
				q.prefilled += k
				prefill += k
				budget -= k
				if q.prefilled == in {
					emit = append(emit, q)
				}
				continue
			}
			decode++
			budget--
			emit = append(emit, q)
		}
		for budget > 0 && len(running) < s.MaxNumSeqs && waitNext < nextSend && engineArr[waitNext] <= now {
			q := &seq{id: waitNext}
			waitNext++
			k := min(budget, c.inputLen(q.id))
			q.prefilled = k
			prefill += k
			budget -= k
			running = append(running, q)
			if k == c.inputLen(q.id) {
				emit = append(emit, q)
			}
		}
		if decode == 0 && prefill == 0 {
			// Nothing runnable yet: the next request is still in the front end.
			if waitNext == nextSend {
				panic("democampaign: engine idle with nothing left to send") // unreachable for a valid spec
			}
			now = math.Max(now, engineArr[waitNext])
			continue
		}
		d := s.StepBase + float64(s.StepPerDecode*float64(decode)) + float64(s.StepPerPrefill*float64(prefill))
		d = float64(d * (0.97 + float64(0.06*noise(sp.Seed, streamStep, step, 0))))
		end := now + d
		// Stream one chunk per token to every request that produced one.
		finished := 0
		for _, q := range emit {
			deliver := 300e-6 + float64(600e-6*noise(sp.Seed, streamDeliver, q.id, q.emitted))
			tr.recv[q.id] = append(tr.recv[q.id], end+deliver)
			q.emitted++
			if q.emitted == c.OutputLen {
				finished++
				if nextSend < n {
					send(end + deliver)
				}
			}
		}
		if finished > 0 {
			kept := running[:0]
			for _, q := range running {
				if q.emitted < c.OutputLen {
					kept = append(kept, q)
				}
			}
			running = kept
			done += finished
		}
		now = end + 80e-6 // scheduler overhead between steps
		step++
	}
	return tr
}
