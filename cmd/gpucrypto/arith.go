package main

// This file is arith's part of the CLI: its group of `gpucrypto bench`
// (bench arith), added to the tables of tables.go (arith has no Server
// and no burn-in). An algorithm new to the CLI adds one such file, named
// after it: its bench group, its Server rows, its burn-in and soak
// operations, in that order.

import (
	"flag"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpucrypto/gpucrypto/arith"
	"github.com/gpucrypto/gpucrypto/batch"
)

var _ = benchGroups.add(benchGroup{
	name: "arith", algorithm: "arith",
	what:       "batched multi-precision add, sub and mul",
	ops:        []string{"add", "sub", "mul"},
	gpuBatches: []int{262144}, cpuBatches: []int{4096},
	flags: arithBenchFlags,
})

// arithBenchFlags are the flags of bench arith: --bits.
func arithBenchFlags(fs *flag.FlagSet, alone bool) func() (benchPlan, error) {
	usage := "operand sizes in bits (default: all supported)"
	if !alone {
		usage = plainBitsUsage
	}
	bits := bitsFlag(fs, usage)
	return func() (benchPlan, error) {
		widths, _, err := benchWidths(bits())
		if err != nil {
			return nil, err
		}
		return func(r *benchRun, op string, batches []int) []benchCase {
			var cases []benchCase
			for _, w := range widths {
				for _, n := range batches {
					cases = append(cases, benchCase{op: op, bits: w, batch: n, measure: func() (benchResult, error) {
						e, err := benchEngineOf(r, arith.NewEngine)
						if err != nil {
							return benchResult{}, err
						}
						return benchArith(e, arith.Op(op), w, n, r.dur)
					}})
				}
			}
			return cases
		}, nil
	}
}

// plainBitsUsage is the help of --bits of plain bench, whose add, sub,
// mul (bench arith) and modexp (bench rsa) take it.
const plainBitsUsage = "operand sizes in bits of add/sub/mul and modexp (default: all supported)"

// bitsFlag defines --bits on fs with usage, unless a group defined it
// before (plain bench: arith and rsa share it), and returns its value.
func bitsFlag(fs *flag.FlagSet, usage string) func() string {
	if fs.Lookup("bits") == nil {
		fs.String("bits", "", usage)
	}
	return func() string { return fs.Lookup("bits").Value.String() }
}

// benchWidths are the operand sizes of --bits (all supported where it is
// empty): those of add, sub and mul, and those of modexp. A size that
// neither has is an error naming it.
func benchWidths(bits string) (widths, modWidths []int, err error) {
	widths = arith.Widths()
	for _, n := range arith.ModLimbs() {
		modWidths = append(modWidths, 32*n)
	}
	if bits == "" {
		return widths, modWidths, nil
	}
	list, err := positiveInts("bits", bits)
	if err != nil {
		return nil, nil, err
	}
	widths, modWidths = nil, nil
	for _, b := range list {
		isMod := b%32 == 0 && slices.Contains(arith.ModLimbs(), b/32)
		_, errArith := arith.CheckWidth(b)
		if errArith == nil {
			widths = append(widths, b)
		}
		if isMod {
			modWidths = append(modWidths, b)
		}
		if errArith != nil && !isMod {
			return nil, nil, fmt.Errorf("--bits %d: no operation has %d-bit operands (add, sub, mul: %s; modexp: %s)", b, b,
				joinInts(arith.Widths()), joinInts(scaled(arith.ModLimbs(), 32)))
		}
	}
	return widths, modWidths, nil
}

// joinInts is a list of numbers for a message: "256, 512".
func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

// scaled is v with every element times k.
func scaled(v []int, k int) []int {
	out := make([]int, len(v))
	for i, n := range v {
		out[i] = n * k
	}
	return out
}

func benchArith(e *arith.Engine, op arith.Op, bits, n int, dur time.Duration) (benchResult, error) {
	limbs := bits / 32
	rng := mrand.New(mrand.NewPCG(uint64(bits), uint64(n)))
	a, b := arith.NewBatch(limbs, n), arith.NewBatch(limbs, n)
	for i := range a.Words {
		a.Words[i], b.Words[i] = rng.Uint32(), rng.Uint32()
	}
	run := func() (time.Duration, error) {
		res, err := e.Run(op, a, b)
		if err != nil {
			return 0, err
		}
		return res.Kernel, nil
	}
	e.SetRoute(batch.RouteDevice)
	r, err := measure(string(op), bits, n, dur, run)
	if err != nil {
		return r, err
	}
	if err := measureAuto(&r, e, dur, run); err != nil {
		return r, err
	}
	r.CPUOps = cpuArith(op, bits, a, b, dur)
	r.Speedup = r.E2EOps / r.CPUOps
	return r, nil
}

// cpuArith measures math/big doing the same operation on all cores.
func cpuArith(op arith.Op, bits int, a, b *arith.Batch, dur time.Duration) float64 {
	const m = 256
	xs, ys := make([]*big.Int, m), make([]*big.Int, m)
	for i := range m {
		xs[i], ys[i] = a.Get(i%a.Count), b.Get(i%b.Count)
	}
	mod := new(big.Int).Lsh(big.NewInt(1), uint(bits))
	var count atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(dur)
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var z big.Int
			done := int64(0)
			for time.Now().Before(deadline) {
				for i := range m {
					switch op {
					case arith.OpAdd:
						z.Add(xs[i], ys[i])
						if z.Cmp(mod) >= 0 {
							z.Sub(&z, mod)
						}
					case arith.OpSub:
						z.Sub(xs[i], ys[i])
						if z.Sign() < 0 {
							z.Add(&z, mod)
						}
					case arith.OpMul:
						z.Mul(xs[i], ys[i])
					}
				}
				done += m
			}
			count.Add(done)
		}()
	}
	wg.Wait()
	return float64(count.Load()) / time.Since(start).Seconds()
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
	run := func() (time.Duration, error) {
		res, err := e.RunModExp(job)
		if err != nil {
			return 0, err
		}
		return res.Kernel, nil
	}
	e.SetRoute(batch.RouteDevice)
	r, err := measure("modexp", bits, n, dur, run)
	if err != nil {
		return r, err
	}
	if err := measureAuto(&r, e, dur, run); err != nil {
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
