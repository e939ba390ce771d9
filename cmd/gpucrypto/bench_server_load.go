package main

import (
	"context"
	"sync"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/cputime"
	"github.com/gpucrypto/gpucrypto/internal/latency"
)

// runCallers is runLoad with an operation of each goroutine's own, made by
// newCaller in the goroutine: n goroutines, each calling its operation one
// at a time, for warm and then dur (the window). edge, when set, runs at
// the window's start and end. The first error stops every goroutine (the
// operations' context ends) and is returned.
func runCallers(n int, warm, dur time.Duration, newCaller func() func(context.Context) error, edge func(start bool)) (loadWindow, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		mu        sync.Mutex
		completed int
		hists     [loadShards]latency.Histogram
		firstErr  error
		wg        sync.WaitGroup
	)
	from := time.Now().Add(warm)
	to := from.Add(dur)
	for g := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			op := newCaller()
			mine := &hists[g%loadShards]
			done := 0
			defer func() {
				mu.Lock()
				completed += done
				mu.Unlock()
			}()
			for ctx.Err() == nil {
				t0 := time.Now()
				if !t0.Before(to) {
					return
				}
				if err := op(ctx); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					cancel()
					return
				}
				t1 := time.Now()
				if !t0.Before(from) {
					mine.Add(t1.Sub(t0))
				}
				if !t1.Before(from) && t1.Before(to) {
					done++
				}
			}
		}()
	}
	wait := func(t time.Time) bool {
		timer := time.NewTimer(time.Until(t))
		defer timer.Stop()
		select {
		case <-timer.C:
			return true
		case <-ctx.Done():
			return false
		}
	}
	if wait(from) && edge != nil {
		edge(true)
		if wait(to) {
			edge(false)
		}
	}
	wg.Wait()
	if firstErr != nil {
		return loadWindow{}, firstErr
	}
	return merge(completed, hists[:]), nil
}

// serverLoad is the load of one row of `gpucrypto bench server`.
type serverLoad struct {
	form       string
	callers    int
	submitters int // the async forms'
	// sharedContext: blocking callers pass the load's context, instead
	// of context.Background()
	sharedContext bool
	warm, dur     time.Duration
}

// measureServer puts load on sv: blocking callers (runCallers) or calls
// in flight from submitter goroutines (runAsyncLoad), and returns the
// Server's side of the row: throughput and latency percentiles of the
// window, the share of its operations on the CPU, the mean batch its
// engines got, and the process's CPU time per 1,000 operations.
func measureServer(sv *serverBench, load serverLoad) (serverResult, error) {
	var st, eng [2]batch.Stats
	var proc [2]time.Duration
	procKnown := true
	edge := func(start bool) {
		i := 1
		if start {
			i = 0
		}
		st[i], eng[i] = sv.stats(), sv.engineStats()
		var ok bool
		proc[i], ok = cputime.Process()
		procKnown = procKnown && ok
	}
	var w loadWindow
	var err error
	submitters, inFlight := 0, 0
	switch load.form {
	case formAsync, formAsyncFrames:
		newSubmitter := sv.newSubmitter
		if load.form == formAsyncFrames {
			newSubmitter = sv.newFrameSubmitter
		}
		submitters = max(1, min(load.submitters, load.callers))
		w, inFlight, err = runAsyncLoad(load.callers, submitters, load.warm, load.dur, newSubmitter, edge)
	default:
		newCaller := sv.newCaller
		if !load.sharedContext {
			newCaller = func() func(context.Context) error {
				call := sv.newCaller()
				return func(context.Context) error { return call(context.Background()) }
			}
		}
		w, err = runCallers(load.callers, load.warm, load.dur, newCaller, edge)
	}
	if err != nil {
		return serverResult{}, err
	}
	r := serverResult{Form: load.form, Callers: load.callers, Submitters: submitters, InFlight: inFlight,
		Ops: float64(w.completed) / load.dur.Seconds(), P50Ms: w.percentileMs(0.50), P99Ms: w.percentileMs(0.99), Count: int(w.started)}
	// both counts from the same two readings, not the window's operations
	// (counted as they complete): the readings are a little late
	cpu, all := st[1].CPUOps-st[0].CPUOps, st[1].CPUOps+st[1].DeviceOps-st[0].CPUOps-st[0].DeviceOps
	if all > 0 {
		r.OnCPU = float64(cpu) / float64(all)
	}
	if w.completed > 0 && procKnown {
		r.CPUPer1000 = (proc[1] - proc[0]).Seconds() * 1000 / float64(w.completed)
	}
	if calls := eng[1].Calls - eng[0].Calls; calls > 0 {
		ops := eng[1].DeviceOps + eng[1].CPUOps - eng[0].DeviceOps - eng[0].CPUOps
		r.MeanBatch = float64(ops) / float64(calls)
	}
	return r, nil
}

// measureGo runs Go's crypto/* side of a row: callers goroutines, each
// doing the operation newGoCaller makes one at a time, for warm and then
// dur, and adds its throughput, latency percentiles and CPU time per
// 1,000 operations to r, with the comparison of the Server's figures.
func measureGo(r *serverResult, newGoCaller func() func() error, callers int, warm, dur time.Duration) error {
	var proc [2]time.Duration
	procKnown := true
	edge := func(start bool) {
		i := 1
		if start {
			i = 0
		}
		var ok bool
		proc[i], ok = cputime.Process()
		procKnown = procKnown && ok
	}
	newCaller := func() func(context.Context) error {
		call := newGoCaller()
		return func(context.Context) error { return call() }
	}
	w, err := runCallers(callers, warm, dur, newCaller, edge)
	if err != nil {
		return err
	}
	r.GoOps = float64(w.completed) / dur.Seconds()
	r.GoP50Ms, r.GoP99Ms = w.percentileMs(0.50), w.percentileMs(0.99)
	if w.completed > 0 && procKnown {
		r.GoCPUPer1000 = (proc[1] - proc[0]).Seconds() * 1000 / float64(w.completed)
	}
	r.compare()
	return nil
}
