// Package huffdeflate writes raw DEFLATE streams (RFC 1951) whose blocks
// hold literals only, each block with Huffman codes of its own: what a
// general DEFLATE writer's Huffman-only mode makes, for the same size, but
// about 1.8x as fast on benchmark files, which are mostly lists of
// numbers. Any inflater reads the result.
//
// Three things make it fast. A block's codes come from a histogram of a
// quarter of its bytes; a byte that the sample missed has no code, and
// meeting one makes the block be coded again from a full histogram (its
// bytes are then all known). When a block uses at most 64 distinct bytes,
// as lists of numbers and most JSON do, the codes of every pair of them
// are precomputed, so one table lookup codes two bytes. And no code is
// longer than 12 bits (RFC 1951 allows 15; the size differs by a few bytes
// in a hundred thousand), so that two to four pairs, or four or five
// bytes, are coded between two stores into the output.
//
// For the size, a block of text, or one whose bytes change kind midway
// (the end of a list of numbers, then text), is coded in parts of 8 KB
// with codes of their own where that is estimated to take fewer bits.
package huffdeflate

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
)

const (
	maxCodeLen   = 15  // RFC 1951's limit for literal/length codes
	litCodeLen   = 12  // ours: the longest code a byte gets
	maxCLCodeLen = 7   // and for the code length code
	endOfBlock   = 256 // the literal/length symbol that ends a block
	numLiterals  = 257 // bytes and the end of block
	maxStored    = 65535

	// blockSize is how many bytes one block codes: codes fitted to a
	// block's own bytes, a header of some 60 bytes each.
	blockSize = 1 << 16

	// minSampled is the smallest block whose codes come from a sample,
	// and maxSampledDistinct the most distinct bytes a sample may show:
	// lists of numbers use some 16, text more, and a sample of text
	// misses some of them, often near the block's end.
	minSampled         = 1 << 12
	maxSampledDistinct = 32

	// splitUnit is the smallest part split codes as a block of its own:
	// 8 KB parts made the repository's result files 0.4% smaller than 64 KB
	// blocks, 16 KB parts 0.2%.
	splitUnit = 1 << 13

	// maxPaired is the most distinct bytes whose pairs are coded: filling
	// the table for 64 costs a tenth of coding the block.
	maxPaired = 64

	// missing is the length an entry gives a byte (or a pair of bytes)
	// that has no code: larger than any real sum of lengths the coding
	// loops add before a store, so the first such byte shows as 64 or more
	// bits waiting.
	missing = 64
)

// entry is a code, bit-reversed for writing least significant bit first,
// shifted left by 8, with its length in bits in the low byte.
type entry uint32

func (t entry) code() uint64 { return uint64(t >> 8) }
func (t entry) len() uint32  { return uint32(t & 255) }

// Encoder codes chunks; it keeps its tables between calls. It is not safe
// for concurrent use.
type Encoder struct {
	freq   [8][256]uint32
	count  [numLiterals]uint32
	lens   [numLiterals]uint8
	single [numLiterals]entry
	// pairs[a | c<<8] codes byte a then byte c; only the pairs of bytes
	// listed in paired hold codes, every other entry is missing.
	pairs    [1 << 16]entry
	paired   []uint8
	pairsSet bool
	huff     huffman
	hdr      header
	parts    [8][numLiterals]uint32 // split's counts of a block's parts

	out  []byte
	pos  int
	acc  uint64 // bits waiting to be stored, the first in the lowest bit
	nacc uint32 // how many

	// For tests: resampled counts the blocks whose codes were made again
	// from all their bytes; smallRoom makes the coding loops run out of
	// room every few bytes.
	resampled int
	smallRoom bool
}

// Append appends the DEFLATE stream of src to dst and returns it.
func (e *Encoder) Append(dst, src []byte) []byte {
	if !e.pairsSet {
		for i := range e.pairs {
			e.pairs[i] = missing
		}
		e.pairsSet = true
	}
	e.out = dst[:cap(dst)]
	e.pos = len(dst)
	e.acc, e.nacc = 0, 0
	if len(src) == 0 {
		// One final block with fixed codes that holds only its end:
		// BFINAL 1, BTYPE 01, then the end of block's seven zero bits.
		e.put(1|1<<1, 3)
		e.put(0, 7)
	}
	for len(src) > 0 {
		n := min(len(src), blockSize)
		// A short block is counted whole: a sample of it says little.
		if n < minSampled || !e.block(src[:n], n == len(src), true) {
			if n >= minSampled {
				e.resampled++
			}
			e.split(src[:n], n == len(src))
		}
		src = src[n:]
	}
	e.storeAll()
	out := e.out[:e.pos]
	e.out = nil
	return out
}

// block writes b as one block (or as stored blocks, when coding would not
// make it smaller). With sampled, its codes come from a sample of its
// bytes, and it returns false, having written nothing, on a byte the
// sample missed.
func (e *Encoder) block(b []byte, final, sampled bool) bool {
	e.histogram(b, sampled)
	return e.counted(b, final, sampled)
}

// split writes b, whose bytes are counted whole, as one block or as
// several: a block whose bytes change kind midway (the end of a list of
// numbers, then text) takes fewer bits as a block of each kind, each with
// its own codes. It counts b in parts of splitUnit bytes (eight at most),
// and joins each to the one before when the estimated size of the two
// together is no more than that of the two apart.
func (e *Encoder) split(b []byte, final bool) {
	parts := min(len(b)/splitUnit, len(e.parts))
	if parts < 2 {
		e.block(b, final, false)
		return
	}
	unit := (len(b) + parts - 1) / parts
	for i := range parts {
		e.histogram(b[min(i*unit, len(b)):min((i+1)*unit, len(b))], false)
		e.parts[i] = e.count
	}
	start := 0 // of the part being grown
	cur := e.parts[0]
	curBits := estimate(&cur)
	for i := 1; i <= parts; i++ {
		if i < parts {
			joined := cur
			for s := range joined[:256] {
				joined[s] += e.parts[i][s]
			}
			joinedBits := estimate(&joined)
			if joinedBits <= curBits+estimate(&e.parts[i]) {
				cur, curBits = joined, joinedBits
				continue
			}
		}
		piece := b[min(start*unit, len(b)):min(i*unit, len(b))]
		e.count = cur
		e.count[endOfBlock] = 1
		e.counted(piece, final && i == parts, false)
		if i < parts {
			start, cur = i, e.parts[i]
			curBits = estimate(&cur)
		}
	}
}

// estimate is about how many bits a block of these counts takes: the
// bytes' entropy, and a header of some 70 bits and 5 a byte value used.
func estimate(count *[numLiterals]uint32) float64 {
	total := uint32(0)
	for _, c := range count[:256] {
		total += c
	}
	// Σ c·log2(total/c) = total·log2(total) - Σ c·log2(c)
	bits := 70 + float64(total)*log2(float64(total))
	for _, c := range count[:256] {
		if c > 0 {
			bits += 5 - float64(c)*log2(float64(c))
		}
	}
	return bits
}

// log2 is a fast approximation of math.Log2 (within 0.01), good enough to
// compare sizes: the exponent, and a parabola through the mantissa.
func log2(x float64) float64 {
	b := math.Float64bits(x)
	e := float64(int(b>>52&0x7ff) - 1023)
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52) // in [1, 2)
	return e + (-0.34484843*m+2.02466578)*m - 1.67487759
}

// counted is block with the bytes of b already counted into count.
func (e *Encoder) counted(b []byte, final, sampled bool) bool {
	if sampled && e.distinct() > maxSampledDistinct {
		return false // text, whose rarer bytes a sample would miss
	}
	e.huff.lengths(e.count[:], e.lens[:], litCodeLen)
	maxLen := uint32(0)
	dataBits := 0
	for s, l := range e.lens {
		dataBits += int(e.count[s]) * int(l)
		maxLen = max(maxLen, uint32(l))
	}
	if sampled {
		dataBits *= 4
	}
	e.hdr.build(e.lens[:], &e.huff)
	storedBits := 0
	for rest := len(b); ; rest -= maxStored {
		storedBits += 3 + 7 + 32 + 8*min(rest, maxStored)
		if rest <= maxStored {
			break
		}
	}
	if sampled && 3+e.hdr.bits+dataBits+dataBits/8 >= storedBits {
		return false // too close to call from a sample
	}
	if 3+e.hdr.bits+dataBits >= storedBits {
		e.stored(b, final)
		return true
	}
	canonical(e.lens[:], e.single[:])
	pairs := e.setPairs(len(b))
	start, acc, nacc := e.pos, e.acc, e.nacc
	fin := uint64(0)
	if final {
		fin = 1
	}
	e.put(fin|2<<1, 3) // BTYPE 10: dynamic codes
	e.hdr.write(e)
	// Room for the bytes as counted (or estimated from the sample): the
	// coding stops short of the end of the room, and gets more.
	for rest := b; len(rest) > 0; {
		room := 64
		if !e.smallRoom {
			room += int(uint64(len(rest))*uint64(dataBits)/uint64(8*len(b))) + len(rest)/64
		}
		e.reserve(room)
		var ok bool
		if rest, ok = e.literals(rest, maxLen, pairs); !ok {
			e.pos, e.acc, e.nacc = start, acc, nacc
			return false
		}
	}
	t := e.single[endOfBlock]
	e.put(t.code(), t.len())
	return true
}

// histogram counts b's bytes into count: all of them, or those of every
// fourth 8-byte word.
func (e *Encoder) histogram(b []byte, sampled bool) {
	f := &e.freq
	clear(f[:])
	step := 8
	if sampled {
		step = 32
	}
	for len(b) >= step {
		w := binary.LittleEndian.Uint64(b)
		f[0][byte(w)]++
		f[1][byte(w>>8)]++
		f[2][byte(w>>16)]++
		f[3][byte(w>>24)]++
		f[4][byte(w>>32)]++
		f[5][byte(w>>40)]++
		f[6][byte(w>>48)]++
		f[7][byte(w>>56)]++
		b = b[step:]
	}
	if !sampled {
		for _, c := range b {
			f[0][c]++
		}
	}
	for i := range 256 {
		e.count[i] = f[0][i] + f[1][i] + f[2][i] + f[3][i] + f[4][i] + f[5][i] + f[6][i] + f[7][i]
	}
	e.count[endOfBlock] = 1
}

// distinct is how many bytes have a count.
func (e *Encoder) distinct() int {
	n := 0
	for _, c := range e.count[:256] {
		if c > 0 {
			n++
		}
	}
	return n
}

// setPairs fills the pair table for the bytes that have codes, when they
// are few enough for that to pay in a block of n bytes (filling costs
// about as much as coding an eighth of as many bytes as it fills
// entries), and says whether it did. The pairs of the last block's bytes
// are cleared first.
func (e *Encoder) setPairs(n int) bool {
	for _, a := range e.paired {
		for _, c := range e.paired {
			e.pairs[uint16(a)|uint16(c)<<8] = missing
		}
	}
	e.paired = e.paired[:0]
	for s := range 256 {
		if e.lens[s] > 0 {
			e.paired = append(e.paired, uint8(s))
		}
	}
	if m := len(e.paired); m > maxPaired || 8*m*m > n {
		e.paired = e.paired[:0]
		return false
	}
	for _, a := range e.paired {
		ta := e.single[a]
		for _, c := range e.paired {
			tc := e.single[c]
			e.pairs[uint16(a)|uint16(c)<<8] = entry(ta.code()|tc.code()<<ta.len())<<8 | entry(ta.len()+tc.len())
		}
	}
	return true
}

// literals writes the codes of b's bytes until the output's room is used
// up, and returns the bytes left. After each store fewer than 8 bits
// wait, so a loop adds as many codes (or pairs of codes) before the next
// store as fit in the other 56 bits at maxLen bits each: fewer stores, and
// the codes of one step are combined independently of the bits waiting.
// ok is false on a byte without a code.
func (e *Encoder) literals(b []byte, maxLen uint32, pairs bool) (rest []byte, ok bool) {
	single, pair := &e.single, &e.pairs
	out, pos := e.out, e.pos
	acc, n := e.acc, e.nacc
	// A step stores 8 bytes at pos and moves it on by 7 at most.
	room := len(out) - 16
	pos, acc, n = store(out, pos, acc, n)
	// Each step: gather v, its n bits, then store; a byte without a code
	// makes the sum 64 or more. The loops are written out, one per number
	// of codes a step takes: gathering through a shared function measured
	// 4% slower.
	switch {
	case pairs && maxLen <= 7: // four pairs of at most 14 bits
		for len(b) >= 8 && pos <= room {
			w := binary.LittleEndian.Uint64(b)
			t0, t1, t2, t3 := pair[uint16(w)], pair[uint16(w>>16)], pair[uint16(w>>32)], pair[uint16(w>>48)]
			s1 := t0.len()
			s2 := s1 + t1.len()
			s3 := s2 + t2.len()
			v := t0.code() | t1.code()<<(s1&63) | t2.code()<<(s2&63) | t3.code()<<(s3&63)
			acc |= v << (n & 63)
			if n += s3 + t3.len(); n >= 64 {
				return nil, false
			}
			pos, acc, n = store(out, pos, acc, n)
			b = b[8:]
		}
	case pairs && maxLen <= 9: // three pairs of at most 18 bits
		for len(b) >= 8 && pos <= room {
			w := binary.LittleEndian.Uint64(b)
			t0, t1, t2 := pair[uint16(w)], pair[uint16(w>>16)], pair[uint16(w>>32)]
			s1 := t0.len()
			s2 := s1 + t1.len()
			v := t0.code() | t1.code()<<(s1&63) | t2.code()<<(s2&63)
			acc |= v << (n & 63)
			if n += s2 + t2.len(); n >= 64 {
				return nil, false
			}
			pos, acc, n = store(out, pos, acc, n)
			b = b[6:]
		}
	case pairs: // two pairs of at most 24 bits
		for len(b) >= 8 && pos <= room {
			w := binary.LittleEndian.Uint32(b)
			t0, t1 := pair[uint16(w)], pair[uint16(w>>16)]
			s1 := t0.len()
			v := t0.code() | t1.code()<<(s1&63)
			acc |= v << (n & 63)
			if n += s1 + t1.len(); n >= 64 {
				return nil, false
			}
			pos, acc, n = store(out, pos, acc, n)
			b = b[4:]
		}
	case maxLen <= 11: // five codes (too many bytes for pairs)
		for len(b) >= 5 && pos <= room {
			_ = b[4]
			t0, t1, t2, t3, t4 := single[b[0]], single[b[1]], single[b[2]], single[b[3]], single[b[4]]
			s1 := t0.len()
			s2 := s1 + t1.len()
			s3 := s2 + t2.len()
			s4 := s3 + t3.len()
			v := t0.code() | t1.code()<<(s1&63) | t2.code()<<(s2&63) | t3.code()<<(s3&63) | t4.code()<<(s4&63)
			acc |= v << (n & 63)
			if n += s4 + t4.len(); n >= 64 {
				return nil, false
			}
			pos, acc, n = store(out, pos, acc, n)
			b = b[5:]
		}
	default: // four codes of at most 12 bits
		for len(b) >= 4 && pos <= room {
			_ = b[3]
			t0, t1, t2, t3 := single[b[0]], single[b[1]], single[b[2]], single[b[3]]
			s1 := t0.len()
			s2 := s1 + t1.len()
			s3 := s2 + t2.len()
			v := t0.code() | t1.code()<<(s1&63) | t2.code()<<(s2&63) | t3.code()<<(s3&63)
			acc |= v << (n & 63)
			if n += s3 + t3.len(); n >= 64 {
				return nil, false
			}
			pos, acc, n = store(out, pos, acc, n)
			b = b[4:]
		}
	}
	for len(b) > 0 && len(b) < 8 && pos <= room {
		t := single[b[0]]
		b = b[1:]
		acc |= t.code() << (n & 63)
		if n += t.len(); n >= 64 {
			return nil, false
		}
		pos, acc, n = store(out, pos, acc, n)
	}
	e.pos, e.acc, e.nacc = pos, acc, n
	return b, true
}

// store writes the n bits waiting in acc (the first in its lowest bit) as
// a whole word at pos, and keeps what is left of a byte: fewer than 8 bits
// wait after it, whatever n was below 64. It returns the new pos, acc, n.
func store(out []byte, pos int, acc uint64, n uint32) (int, uint64, uint32) {
	binary.LittleEndian.PutUint64(out[pos:], acc)
	return pos + int(n>>3), acc >> (n >> 3 << 3 & 63), n & 7
}

// stored writes b as stored blocks (BTYPE 00) of at most 65,535 bytes.
func (e *Encoder) stored(b []byte, final bool) {
	for {
		n := min(len(b), maxStored)
		fin := uint64(0)
		if final && n == len(b) {
			fin = 1
		}
		e.put(fin, 3)
		e.storeAll() // a stored block's length starts on a byte boundary
		e.reserve(n + 4)
		binary.LittleEndian.PutUint16(e.out[e.pos:], uint16(n))
		binary.LittleEndian.PutUint16(e.out[e.pos+2:], ^uint16(n))
		e.pos += 4
		e.pos += copy(e.out[e.pos:], b[:n])
		b = b[n:]
		if len(b) == 0 {
			return
		}
	}
}

// reserve makes room for n more bytes, and 16 more for whole-word stores
// at the end. It grows the output by an eighth at least, not twice (most
// of a chunk's output is kept as long as the chunk), with a sixteenth to
// spare: a reused output then takes the next chunk of the same file
// without growing again.
func (e *Encoder) reserve(n int) {
	need := e.pos + n + 16
	if need <= len(e.out) {
		return
	}
	grown := make([]byte, max(len(e.out)+len(e.out)/8, need+need/16))
	copy(grown, e.out[:e.pos])
	e.out = grown
}

// put adds the n ≤ 32 low bits of v.
func (e *Encoder) put(v uint64, n uint32) {
	e.acc |= v << (e.nacc & 63)
	e.nacc += n
	if e.nacc >= 32 {
		e.reserve(4)
		binary.LittleEndian.PutUint32(e.out[e.pos:], uint32(e.acc))
		e.pos += 4
		e.acc >>= 32
		e.nacc -= 32
	}
}

// storeAll stores the bits waiting, the last byte padded with zeros.
func (e *Encoder) storeAll() {
	e.reserve(8)
	for e.nacc > 0 {
		e.out[e.pos] = byte(e.acc)
		e.pos++
		e.acc >>= 8
		e.nacc -= min(e.nacc, 8)
	}
	e.acc = 0
}

// canonical gives each symbol with a length its code (RFC 1951 3.2.2),
// and each other one the missing entry.
func canonical(lens []uint8, tab []entry) {
	var count [maxCodeLen + 1]uint32
	for _, l := range lens {
		count[l]++
	}
	count[0] = 0
	var next [maxCodeLen + 1]uint32
	code := uint32(0)
	for l := 1; l <= maxCodeLen; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	for s, l := range lens {
		if l == 0 {
			tab[s] = missing
			continue
		}
		c := next[l]
		next[l]++
		tab[s] = entry(bits.Reverse32(c)>>(32-uint32(l)))<<8 | entry(l)
	}
}

// huffman is the scratch space of lengths.
type huffman struct {
	syms    []uint16 // symbols with a count, least frequent first
	weight  []uint32
	parent  []int32
	depth   []uint8
	blCount [maxCodeLen + 1]int
}

// lengths sets lens to the lengths of a Huffman code for count, none
// longer than limit: a complete code, of two symbols at least (a second
// one without a count gets a code when only one has a count).
func (h *huffman) lengths(count []uint32, lens []uint8, limit int) {
	clear(lens)
	h.syms = h.syms[:0]
	for s, c := range count {
		if c > 0 {
			h.syms = append(h.syms, uint16(s))
		}
	}
	if len(h.syms) < 2 {
		other := uint16(0)
		if len(h.syms) == 1 && h.syms[0] == 0 {
			other = 1
		}
		lens[other] = 1
		if len(h.syms) == 1 {
			lens[h.syms[0]] = 1
		} else {
			lens[1-other] = 1
		}
		return
	}
	slices.SortFunc(h.syms, func(a, b uint16) int {
		if count[a] != count[b] {
			if count[a] < count[b] {
				return -1
			}
			return 1
		}
		return int(a) - int(b)
	})
	// The tree, made with two queues: the leaves 0..n-1 in the order of
	// their weight, and the inner nodes n..2n-2, made in the order of
	// theirs.
	n := len(h.syms)
	nodes := 2*n - 1
	h.weight = slices.Grow(h.weight[:0], nodes)[:nodes]
	h.parent = slices.Grow(h.parent[:0], nodes)[:nodes]
	h.depth = slices.Grow(h.depth[:0], nodes)[:nodes]
	for i, s := range h.syms {
		h.weight[i] = count[s]
	}
	leaf, inner := 0, n
	lightest := func(made int) int {
		if leaf < n && (inner == made || h.weight[leaf] <= h.weight[inner]) {
			leaf++
			return leaf - 1
		}
		inner++
		return inner - 1
	}
	for made := n; made < nodes; made++ {
		a := lightest(made)
		b := lightest(made)
		h.weight[made] = h.weight[a] + h.weight[b]
		h.parent[a], h.parent[b] = int32(made), int32(made)
	}
	// Depths from the root down; the leaves below the limit are counted
	// at it, and overflow counts every node below it.
	clear(h.blCount[:])
	h.depth[nodes-1] = 0
	overflow := 0
	for i := nodes - 2; i >= 0; i-- {
		d := h.depth[h.parent[i]] + 1
		h.depth[i] = d
		if int(d) > limit {
			overflow++
		}
		if i < n {
			h.blCount[min(int(d), limit)]++
		}
	}
	// Make the code complete again: each step moves a leaf from the
	// deepest level above the limit one down, where it pairs with a leaf
	// from the limit (the counting of zlib's trees.c).
	for ; overflow > 0; overflow -= 2 {
		l := limit - 1
		for h.blCount[l] == 0 {
			l--
		}
		h.blCount[l]--
		h.blCount[l+1] += 2
		h.blCount[limit]--
	}
	// The least frequent symbols take the longest codes.
	i := 0
	for l := limit; l >= 1; l-- {
		for range h.blCount[l] {
			lens[h.syms[i]] = uint8(l)
			i++
		}
	}
}

// clOrder is the order in which a header gives the code length code's
// lengths.
var clOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// header is a dynamic block's header: the lengths of the 257 literal
// codes and of the one distance code, run-length coded with the code
// length alphabet (0-15 a length; 16 repeats the last 3-6 times; 17 and 18
// give 3-10 and 11-138 zeros), which has a Huffman code of its own.
type header struct {
	ops    [numLiterals + 1]uint16 // a code length symbol | its extra bits' value << 5
	nops   int
	clLens [19]uint8
	clTab  [19]entry
	ncl    int // how many code length code lengths are sent
	bits   int // the header's size after BFINAL and BTYPE
}

func (h *header) build(lens []uint8, hf *huffman) {
	var all [numLiterals + 1]uint8
	copy(all[:], lens)
	// One distance code of one bit: the block uses none, and a single
	// one-bit code is the form every inflater accepts.
	all[numLiterals] = 1
	h.nops = 0
	var clCount [19]uint32
	add := func(sym, extra int) {
		h.ops[h.nops] = uint16(sym) | uint16(extra)<<5
		h.nops++
		clCount[sym]++
	}
	for i := 0; i < len(all); {
		l := all[i]
		run := 1
		for i+run < len(all) && all[i+run] == l {
			run++
		}
		i += run
		if l == 0 {
			for run >= 11 {
				r := min(run, 138)
				add(18, r-11)
				run -= r
			}
			if run >= 3 {
				add(17, run-3)
				run = 0
			}
		} else {
			add(int(l), 0)
			run--
			for run >= 3 {
				r := min(run, 6)
				add(16, r-3)
				run -= r
			}
		}
		for ; run > 0; run-- {
			add(int(l), 0)
		}
	}
	hf.lengths(clCount[:], h.clLens[:], maxCLCodeLen)
	canonical(h.clLens[:], h.clTab[:])
	h.ncl = len(clOrder)
	for h.ncl > 4 && h.clLens[clOrder[h.ncl-1]] == 0 {
		h.ncl--
	}
	h.bits = 5 + 5 + 4 + 3*h.ncl
	for _, op := range h.ops[:h.nops] {
		h.bits += int(h.clLens[op&31]) + extraBits(op&31)
	}
}

func extraBits(sym uint16) int {
	switch sym {
	case 16:
		return 2
	case 17:
		return 3
	case 18:
		return 7
	}
	return 0
}

func (h *header) write(e *Encoder) {
	e.put(0, 5) // HLIT: 257 literal/length codes
	e.put(0, 5) // HDIST: 1 distance code
	e.put(uint64(h.ncl-4), 4)
	for _, s := range clOrder[:h.ncl] {
		e.put(uint64(h.clLens[s]), 3)
	}
	for _, op := range h.ops[:h.nops] {
		t := h.clTab[op&31]
		e.put(t.code(), t.len())
		if x := extraBits(op & 31); x > 0 {
			e.put(uint64(op>>5), uint32(x))
		}
	}
}
