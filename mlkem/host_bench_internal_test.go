package mlkem

import (
	"crypto/rand"
	"testing"

	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// The host work of one device batch of encapsulations, measured without a
// device: hostElements elements over hostKeys distinct ML-KEM-768 keys,
// element i under key i mod hostKeys, so that no two consecutive elements
// share a key and the key table has an entry for each element (a server's
// requests of many clients, interleaved: the table's copy of keys at its
// largest).
const (
	hostElements = 1 << 18
	hostKeys     = 4096
)

// hostBatch is a device batch's inputs and staging memory, as Device
// lays them out, with the device's outputs made up: every key checked
// good, random shared keys and ciphertexts.
type hostBatch struct {
	j                 *encapsulateJob
	index, keys       []uint32
	verdicts          []uint32
	messages          []uint32
	shared, cts       []uint32
	starts            []byte
	table             keyTable
	elements, entries int
}

// newHostBatch is the batch of the elements eks (random: their given
// randomness, nil for fresh), every key checked good.
func newHostBatch(tb testing.TB, p *params, eks, random [][]byte) *hostBatch {
	tb.Helper()
	n := len(eks)
	h := &hostBatch{elements: n, j: &encapsulateJob{p: p, eks: eks, random: random,
		shared: engine.Ready(make([][]byte, n)), cts: engine.Ready(make([][]byte, n)), errs: engine.NewErrors(n)}}
	h.index, h.starts = make([]uint32, n), make([]byte, n)
	h.table = h.j.keyTable(0, h.index, h.starts)
	h.entries = len(h.table.first)
	h.keys = make([]uint32, h.entries*p.ekSize/4)
	h.verdicts = make([]uint32, h.entries)
	for t := range h.verdicts {
		h.verdicts[t] = 1
	}
	h.messages = make([]uint32, 8*n)
	h.shared = randomWords(tb, 8*n)
	h.cts = randomWords(tb, p.ctSize/4*n)
	return h
}

// distinctKeys are n encapsulation keys of p, of random seeds.
func distinctKeys(tb testing.TB, p *params, n int) [][]byte {
	tb.Helper()
	keys := make([][]byte, n)
	for k := range keys {
		dk, err := p.newDecapsulationKey(randomBytes(tb, SeedSize))
		if err != nil {
			tb.Fatal(err)
		}
		keys[k] = dk.encapsulationKey()
	}
	return keys
}

// randomBytes are n bytes from crypto/rand.
func randomBytes(tb testing.TB, n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		tb.Fatal(err)
	}
	return b
}

// randomWords are n words from crypto/rand.
func randomWords(tb testing.TB, n int) []uint32 {
	w := make([]uint32, n)
	if _, err := rand.Read(wordBytes(w)); err != nil {
		tb.Fatal(err)
	}
	return w
}

// BenchmarkEncapsulateHost times each step of the host work of
// encapsulateJob.Device on one batch (hostElements elements, hostKeys
// keys), without the device: the packing (the key table, the keys'
// copy, the messages drawn) and the unpacking of made-up outputs into
// the shared keys, ciphertexts and errors that the call returns.
// ns/element is each step's time over the batch's elements.
func BenchmarkEncapsulateHost(b *testing.B) {
	distinct := distinctKeys(b, mlkem768, hostKeys)
	eks := make([][]byte, hostElements)
	for i := range eks {
		eks[i] = distinct[i%hostKeys]
	}
	h := newHostBatch(b, mlkem768, eks, nil)
	steps := []hostStep{
		{"keyTable", func() { h.j.keyTable(0, h.index, h.starts) }},
		{"putKeys", func() { h.j.putKeys(0, h.table, h.keys) }},
		{"putMessages", func() { h.j.putMessages(0, h.messages) }},
		{"unpack", func() {
			if i := h.j.unpack(0, h.index, h.verdicts, h.shared, h.cts); i >= 0 {
				b.Fatalf("element %d refused", i)
			}
		}},
	}
	runHostSteps(b, steps, h.elements)
}

// hostStep is one step of a batch's host work, timed by runHostSteps.
type hostStep struct {
	name string
	run  func()
}

// runHostSteps times each step in a sub-benchmark of its own, in
// ns/element over a batch of elements, after five runs as a call's
// later batches would find it: the staging memory's pages written, the
// heap grown to hold results.
func runHostSteps(b *testing.B, steps []hostStep, elements int) {
	for _, s := range steps {
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			for range 5 {
				s.run()
			}
			for b.Loop() {
				s.run()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*elements), "ns/element")
		})
	}
}

// BenchmarkUnpackHost times the unpacking of one device batch of
// decapsulations and of key generations (hostElements elements, of
// ML-KEM-768, made-up outputs), as BenchmarkEncapsulateHost/unpack.
func BenchmarkUnpackHost(b *testing.B) {
	p, n := mlkem768, hostElements
	decapsulation := &decapsulateJob{p: p, out: engine.Ready(make([][]byte, n)), errs: engine.NewErrors(n)}
	keyGeneration := &keyGenJob{p: p, out: engine.Ready(make([][]byte, n)), errs: engine.NewErrors(n)}
	shared, eks := randomWords(b, 8*n), randomWords(b, p.ekSize/4*n)
	steps := []hostStep{
		{"decapsulate", func() { decapsulation.unpack(0, shared) }},
		{"keygen", func() { keyGeneration.unpack(0, eks) }},
	}
	runHostSteps(b, steps, n)
}
