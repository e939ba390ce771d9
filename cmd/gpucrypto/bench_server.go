package main

import (
	"context"
	"crypto"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/rsa"
)

// serverResult is one line of `gpucrypto bench server`: callers goroutines
// each doing one operation at a time through a Server, for a while.
type serverResult struct {
	Op      string  `json:"op"`
	Callers int     `json:"callers"`
	Ops     float64 `json:"ops_per_s"`
	P50Ms   float64 `json:"p50_ms"`
	P99Ms   float64 `json:"p99_ms"`
	Count   int     `json:"operations"`
}

// cmdBenchServer measures the Servers as a server's goroutines meet them:
// throughput and latency against the number of concurrent callers.
func cmdBenchServer(args []string) error {
	fs := flag.NewFlagSet("bench server", flag.ExitOnError)
	pickDevice := deviceFlags(fs)
	opsFlag := fs.String("ops", "rsa2048,x25519", "operations: rsa2048 (Signer.Sign, PKCS #1 v1.5 SHA-256), x25519 (SharedSecret)")
	callersFlag := fs.String("callers", "1,16,256,2048,16384", "numbers of concurrent callers")
	maxBatch := fs.Int("max-batch", 0, "batch.Options.MaxBatch (0: default)")
	maxDelay := fs.Duration("max-delay", 0, "batch.Options.MaxDelay (0: default)")
	seconds := fs.Float64("seconds", 2, "time per measurement")
	jsonOut := fs.String("json-out", "", "also write the results as JSON to this file")
	fs.Parse(args)
	d, err := pickDevice()
	if err != nil {
		return err
	}
	callers, err := intList(*callersFlag)
	if err != nil {
		return err
	}
	opts := batch.Options{MaxBatch: *maxBatch, MaxDelay: *maxDelay}
	dur := time.Duration(*seconds * float64(time.Second))
	var results []serverResult
	for _, op := range strings.Split(*opsFlag, ",") {
		var call func(ctx context.Context) error
		var closeServer func()
		switch op {
		case "rsa2048":
			e, err := rsa.NewEngine(d)
			if err != nil {
				return err
			}
			key, err := benchKey(2048)
			if err != nil {
				return err
			}
			s := rsa.NewServer(opts, e)
			signer, err := s.Signer(key)
			if err != nil {
				return err
			}
			digest := sha256.Sum256([]byte("gpucrypto bench server"))
			call = func(ctx context.Context) error {
				_, err := signer.SignContext(ctx, nil, digest[:], crypto.SHA256)
				return err
			}
			closeServer = s.Close
		case "x25519":
			e, err := ecdh.NewEngine(d)
			if err != nil {
				return err
			}
			s, err := ecdh.NewServer(opts, e)
			if err != nil {
				return err
			}
			priv := make([]byte, 32)
			peer := make([]byte, 32)
			priv[0], peer[0] = 7, 9
			call = func(ctx context.Context) error {
				_, err := s.SharedSecret(ctx, ecdh.X25519, priv, peer)
				return err
			}
			closeServer = s.Close
		default:
			return fmt.Errorf("bench server: unknown op %q (have rsa2048, x25519)", op)
		}
		// warm-up: builds and first batches
		if err := call(context.Background()); err != nil {
			return err
		}
		for _, n := range callers {
			r, err := serveLoad(op, n, dur, call)
			if err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "%s, %d callers: %.0f ops/s, p50 %.2f ms, p99 %.2f ms\n", op, n, r.Ops, r.P50Ms, r.P99Ms)
			results = append(results, r)
		}
		closeServer()
	}
	if *jsonOut != "" {
		data, _ := json.MarshalIndent(struct {
			Device  string         `json:"device"`
			Backend string         `json:"backend"`
			Commit  string         `json:"commit"`
			CPU     string         `json:"cpu"`
			Cores   int            `json:"cpu_cores"`
			Results []serverResult `json:"results"`
		}{d.Name, d.Backend, commit(), cpuModel(), runtime.NumCPU(), results}, "", "  ")
		if err := os.WriteFile(*jsonOut, append(data, '\n'), 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("device: %s (%s)  commit: %s\n\n", d.Name, d.Backend, commit())
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "op\tcallers\tops/s\tp50 ms\tp99 ms\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.2f\t%.2f\t\n", r.Op, r.Callers, human(r.Ops), r.P50Ms, r.P99Ms)
	}
	return tw.Flush()
}

// serveLoad runs n goroutines calling call one operation at a time for
// dur and returns the throughput and the latency percentiles.
func serveLoad(op string, n int, dur time.Duration, call func(ctx context.Context) error) (serverResult, error) {
	var (
		mu        sync.Mutex
		latencies []time.Duration
		firstErr  atomic.Value
		wg        sync.WaitGroup
	)
	start := time.Now()
	deadline := start.Add(dur)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for time.Now().Before(deadline) {
				t0 := time.Now()
				if err := call(context.Background()); err != nil {
					firstErr.Store(err)
					return
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			latencies = append(latencies, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err, _ := firstErr.Load().(error); err != nil {
		return serverResult{}, err
	}
	slices.Sort(latencies)
	pct := func(p float64) float64 {
		if len(latencies) == 0 {
			return 0
		}
		return float64(latencies[min(len(latencies)-1, int(p*float64(len(latencies))))]) / 1e6
	}
	return serverResult{Op: op, Callers: n, Ops: float64(len(latencies)) / elapsed.Seconds(),
		P50Ms: pct(0.50), P99Ms: pct(0.99), Count: len(latencies)}, nil
}
