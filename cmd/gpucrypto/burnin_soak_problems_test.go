package main

import (
	"bytes"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
)

// fakeSoak is a family of the soak whose Engines and Servers misbehave
// as told, with no device: the soak must count what they do wrong.
type fakeSoak struct {
	wrong       bool // every call reports a wrong result
	closedEarly bool // every call fails with batch.ErrClosed before any Close
	hangClose   bool // an Engine's Close never returns
	closes      atomic.Int64
}

func (f *fakeSoak) newEngine(*device.Device) (soakEngine, error) { return &fakeSoakEngine{f: f}, nil }

type fakeSoakEngine struct {
	f      *fakeSoak
	closed atomic.Bool
}

func (e *fakeSoakEngine) SetRoute(batch.Route)   {}
func (e *fakeSoakEngine) OnFallback(func(error)) {}
func (e *fakeSoakEngine) Stats() batch.Stats     { return batch.Stats{} }
func (e *fakeSoakEngine) newServer(batch.Options) (soakServer, error) {
	return &fakeSoakServer{e: e}, nil
}

func (e *fakeSoakEngine) Close() error {
	e.f.closes.Add(1)
	if e.f.hangClose {
		select {}
	}
	e.closed.Store(true)
	return nil
}

func (e *fakeSoakEngine) call(c *soakCheck, n int) error { return e.f.answer(c, &e.closed) }

type fakeSoakServer struct {
	e      *fakeSoakEngine
	closed atomic.Bool
}

func (s *fakeSoakServer) Close() error            { s.closed.Store(true); return nil }
func (s *fakeSoakServer) call(c *soakCheck) error { return s.e.f.answer(c, &s.closed, &s.e.closed) }

// answer is one call: refused once closed, else as f says.
func (f *fakeSoak) answer(c *soakCheck, closed ...*atomic.Bool) error {
	time.Sleep(time.Millisecond)
	for _, cl := range closed {
		if cl.Load() {
			return fmt.Errorf("fake: %w", batch.ErrClosed)
		}
	}
	switch {
	case f.closedEarly:
		return fmt.Errorf("fake: %w", batch.ErrClosed)
	case f.wrong:
		c.mismatch("fake result differs", nil, hexMap("result", []byte{1}), hexMap("result", []byte{2}))
	}
	return nil
}

// The soak counts what goes wrong: wrong results, calls refused as closed
// before anything was closed, and a Close that does not return (the soak
// then ends with an error, having printed every goroutine).
func TestSoakFindsProblems(t *testing.T) {
	saved := soakHang
	defer func() { soakHang = saved }()
	soakHang = 300 * time.Millisecond
	for _, c := range []struct {
		name       string
		f          *fakeSoak
		mismatches bool
		errs       bool
		hung       bool
	}{
		{"good", &fakeSoak{}, false, false, false},
		{"wrong", &fakeSoak{wrong: true}, true, false, false},
		{"closed early", &fakeSoak{closedEarly: true}, false, true, false},
		{"hung close", &fakeSoak{hangClose: true}, false, true, true},
	} {
		var stderr bytes.Buffer
		o := burninOptions{duration: time.Second, cycle: 200 * time.Millisecond, callers: 4, workers: 2, seed: 1}
		r := &soakRun{opts: o, dev: &device.Device{Info: device.Info{Name: "fake"}}, log: &failureLog{path: t.TempDir() + "/failures.jsonl"}, stderr: &stderr}
		r.ops = []*soakOp{{name: "fake", large: 8, family: c.f}}
		err := r.run()
		r.log.close()
		op := r.ops[0]
		if (err != nil) != c.hung || r.hung.Load() != c.hung {
			t.Errorf("%s: run: %v, hung %v; want hung %v", c.name, err, r.hung.Load(), c.hung)
		}
		if (op.mismatches.Load() > 0) != c.mismatches || (op.errs.Load() > 0) != c.errs || r.failed() != (c.mismatches || c.errs) {
			t.Errorf("%s: %d mismatches, %d errors, failed %v", c.name, op.mismatches.Load(), op.errs.Load(), r.failed())
		}
		if !c.errs && !c.mismatches && (op.engines.Load() < 2 || op.servers.Load() < 2 || op.closed.Load() == 0 || op.serverCalls.Load() == 0 || op.engineCalls.Load() == 0) {
			t.Errorf("%s: engines %d, servers %d, refused after close %d, server calls %d, engine calls %d",
				c.name, op.engines.Load(), op.servers.Load(), op.closed.Load(), op.serverCalls.Load(), op.engineCalls.Load())
		}
		if c.hung && !strings.Contains(stderr.String(), "goroutine ") {
			t.Errorf("%s: no goroutine stacks on stderr", c.name)
		}
		if c.mismatches && (r.log.written == 0 || !strings.Contains(op.firstProblem, "fake result differs")) {
			t.Errorf("%s: %d failures written, first problem %q", c.name, r.log.written, op.firstProblem)
		}
		if c.errs && !c.hung && !strings.Contains(op.firstProblem, "unexpected error") {
			t.Errorf("%s: first problem %q", c.name, op.firstProblem)
		}
	}
}
