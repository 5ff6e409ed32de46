package democampaign

// The generator needs the same bytes on every machine and Go version, so it
// uses its own small PRNG rather than math/rand, whose streams are not
// promised to stay fixed.

// mix is the SplitMix64 finaliser: a good 64-bit hash of its input.
func mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// noise is a counter-based uniform draw in [0, 1) keyed by (seed, stream, i,
// j). Being keyed rather than sequential, a draw does not depend on how many
// draws came before it, so the fit can re-run the simulation with another
// parameter and every request and engine step keeps its own jitter.
func noise(seed uint64, stream, i, j int) float64 {
	h := mix(mix(mix(seed^uint64(stream))^uint64(i)) ^ uint64(j))
	return float64(h>>11) / (1 << 53)
}

// Streams of noise, one per kind of jitter.
const (
	streamCreate = iota + 1
	streamDispatch
	streamNet
	streamFrontend
	streamStep
	streamDeliver
)
