package main

import (
	"crypto"
	"crypto/rand"
	stdrsa "crypto/rsa"
	"crypto/sha256"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpucrypto/gpucrypto/arith"
	"github.com/gpucrypto/gpucrypto/rsa"
)

// rsaOps are the RSA benchmark operations: "modexp" (full-width
// exponentiations, every modulus size of --bits) and "rsa2048" ... (private
// operations: PKCS #1 v1.5 SHA-256 signatures with one key).
var rsaOps = []string{"modexp", "rsa2048", "rsa3072", "rsa4096"}

// rsaOpBits parses "rsa2048" and friends.
func rsaOpBits(op string) (int, bool) {
	s, ok := strings.CutPrefix(op, "rsa")
	if !ok {
		return 0, false
	}
	bits, err := strconv.Atoi(s)
	return bits, err == nil
}

// benchModExp times n random full-width exponentiations under one random
// modulus of bits bits, and math/big's Exp on all cores.
func benchModExp(e *arith.Engine, bits, n int, dur time.Duration) (benchResult, error) {
	limbs := bits / 32
	m, err := arith.MontConfig{}.ResolveFor(e.Device(), limbs, n)
	if err != nil {
		return benchResult{}, err
	}
	rng := mrand.New(mrand.NewPCG(uint64(bits), uint64(n)))
	words := func(k int) []uint32 {
		w := make([]uint32, k)
		for i := range w {
			w[i] = rng.Uint32()
		}
		return w
	}
	mod := arith.FromLimbs(words(limbs))
	mod.SetBit(mod, 0, 1).SetBit(mod, bits-1, 1)
	c, err := arith.NewConstants(mod, m.W)
	if err != nil {
		return benchResult{}, err
	}
	job := &arith.ModExpJob{Mont: m, Count: n, EWords: limbs, Mods: []*arith.Constants{c},
		Base: make([]uint32, m.W*n), Exp: words(limbs * n), Index: make([]uint32, n)}
	copy(job.Base, words(limbs*n)) // bases below 2^bits: the top word of an n+1-word form stays zero
	r, err := measure("modexp", bits, n, dur, func() (time.Duration, error) {
		res, err := e.RunModExp(job)
		if err != nil {
			return 0, err
		}
		return res.Kernel, nil
	})
	if err != nil {
		return r, err
	}
	xs := make([]*big.Int, 64)
	es := make([]*big.Int, 64)
	for i := range xs {
		xs[i], es[i] = arith.FromLimbs(words(limbs)), arith.FromLimbs(words(limbs))
	}
	r.CPUOps = allCores(dur, func(i int) { new(big.Int).Exp(xs[i%64], es[i%64], mod) })
	r.Speedup = r.E2EOps / r.CPUOps
	return r, nil
}

var benchKeys sync.Map // bits → *stdrsa.PrivateKey

func benchKey(bits int) (*stdrsa.PrivateKey, error) {
	if k, ok := benchKeys.Load(bits); ok {
		return k.(*stdrsa.PrivateKey), nil
	}
	k, err := stdrsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		return nil, err
	}
	benchKeys.Store(bits, k)
	return k, nil
}

// benchRSA times batches of n PKCS #1 v1.5 SHA-256 signatures with one
// bits-bit key on the engine (kernel time: the engine's device time), then
// with rsaPipeline such batches signed at once (all their signatures per
// second of wall time), and crypto/rsa on all cores.
func benchRSA(e *rsa.Engine, op string, bits, n int, dur time.Duration) (benchResult, error) {
	k, err := benchKey(bits)
	if err != nil {
		return benchResult{}, err
	}
	keys := make([]*stdrsa.PrivateKey, n)
	digests := make([][]byte, n)
	for i := range n {
		d := sha256.Sum256([]byte(strconv.Itoa(i)))
		keys[i], digests[i] = k, d[:]
	}
	sign := func() (time.Duration, error) {
		t0 := e.DeviceTime()
		if _, err := e.SignPKCS1v15(keys, crypto.SHA256, digests); err != nil {
			return 0, err
		}
		return e.DeviceTime() - t0, nil
	}
	r, err := measure(op, bits, n, dur, sign)
	if err != nil {
		return r, err
	}
	if r.PipeOps, err = pipelined(rsaPipeline, n, dur, sign); err != nil {
		return r, err
	}
	r.Pipeline = rsaPipeline
	if e.Fallbacks() > 0 {
		return benchResult{}, fmt.Errorf("device failed; the batch ran on the CPU")
	}
	r.CPUOps = allCores(dur, func(i int) { stdrsa.SignPKCS1v15(nil, k, crypto.SHA256, digests[i%n]) })
	r.Speedup = r.E2EOps / r.CPUOps
	return r, nil
}

// rsaPipeline is the number of callers of the pipelined RSA figure: an
// rsa.Server keeps batch.Options.Pipeline batches (default 2) in flight
// per engine, so that the host work of one (padding, conversions, the
// sample check, encoding) overlaps the device work of another.
const rsaPipeline = 2

// allCores runs f(0), f(1), ... on every core for dur and returns calls/s.
func allCores(dur time.Duration, f func(i int)) float64 {
	var count atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(dur)
	for w := range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			done := int64(0)
			for i := w; time.Now().Before(deadline); i += runtime.NumCPU() {
				f(i)
				done++
			}
			count.Add(done)
		}()
	}
	wg.Wait()
	return float64(count.Load()) / time.Since(start).Seconds()
}
