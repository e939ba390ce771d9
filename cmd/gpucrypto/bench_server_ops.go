package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
)

// serverOp is an operation of `gpucrypto bench server`.
type serverOp struct {
	name      string
	algorithm string // its algorithm in internal/registry
	// what is what --ops' help says of it (operations with the same what,
	// one after the other, share it: "ed25519-sign and ed25519-verify
	// (...)"), goPackage the Go package that computes it beside it.
	what, goPackage string
	// forms are the forms of submission its Server has: blocking, and
	// async where the Server has a Go method (async-frames: GoFrame).
	// They are the newSubmitter and newFrameSubmitter that start sets:
	// TestServerOpForms checks that they agree.
	forms []string
	// start starts the operation's Server over one engine per device of
	// devs (none: one CPU engine), with Go's crypto/* for the same inputs
	// beside it.
	start func(devs []*device.Device, opts batch.Options) (*serverBench, error)
}

// The forms of submission (--forms).
const (
	formBlocking    = "blocking"
	formAsync       = "async"
	formAsyncFrames = "async-frames"
)

var serverForms = []string{formBlocking, formAsync, formAsyncFrames}

// serverOps are the operations of `gpucrypto bench server` (tables.go),
// each added by its algorithm's NAME.go. Giving an operation its
// asynchronous form, once its Server has a Go method, is a newSubmitter
// in its start function (a newCallSubmitter over the Server's Call type,
// as newAESSubmitter) and formAsync in its forms.
var serverOps = newTable(func(op serverOp) string { return op.algorithm })

// serverOpNames are the names of serverOps: the operations (--ops) of
// `gpucrypto bench server`, in report order.
func serverOpNames() []string {
	var names []string
	for _, op := range serverOps.all() {
		names = append(names, op.name)
	}
	return names
}

// serverOpNamed is the operation called name.
func serverOpNamed(name string) (serverOp, bool) {
	for _, op := range serverOps.all() {
		if op.name == name {
			return op, true
		}
	}
	return serverOp{}, false
}

// serverOpsUsage is the help of --ops: each operation, what it measures,
// and the Go packages beside them.
func serverOpsUsage() string {
	ops := serverOps.all()
	var parts, goPackages []string
	for i := 0; i < len(ops); {
		names := []string{ops[i].name}
		j := i + 1
		for ; j < len(ops) && ops[j].what == ops[i].what; j++ {
			names = append(names, ops[j].name)
		}
		parts = append(parts, wordList(names, "and")+" ("+ops[i].what+")")
		i = j
	}
	for _, op := range ops {
		if !slices.Contains(goPackages, op.goPackage) {
			goPackages = append(goPackages, op.goPackage)
		}
	}
	return "operations: " + strings.Join(parts, ", ") + "; beside each, Go's " + wordList(goPackages, "or") + " doing the same"
}

// serverOpsWith are the operations that have form (--forms' help).
func serverOpsWith(form string) (names []string, all bool) {
	ops := serverOps.all()
	for _, op := range ops {
		if slices.Contains(op.forms, form) {
			names = append(names, op.name)
		}
	}
	return names, len(names) == len(ops)
}

// serverBench is one operation of `gpucrypto bench server` ready to
// measure: a Server of it, and Go's crypto/* computing it on the same
// inputs with the same key.
type serverBench struct {
	// newCaller makes the operation of one blocking caller through the
	// Server (each caller its own output buffers, where the operation
	// has them); ctx is the context the caller passes.
	newCaller func() func(ctx context.Context) error
	// newSubmitter and newFrameSubmitter make a goroutine's window of the
	// asynchronous forms (nil: the Server has no such form).
	newSubmitter, newFrameSubmitter func(window int) submitter
	// newGoCaller makes the operation of one goroutine with Go's
	// crypto/*, on the same inputs and with the same key shared by all
	// goroutines, as the Servers' callers share theirs (goRSASign,
	// goECDH, ...: each makes one goroutine's operation).
	newGoCaller func() func() error
	// check computes the operation once through the Server and compares
	// the result with Go's (an error if they differ): the Server's first
	// call, which also builds what its first batch needs.
	check func(ctx context.Context) error
	// stats are the Server's; engineStats its engines' summed, their
	// calls (the batches the Server gave them) included.
	stats, engineStats func() batch.Stats
	close              func()
}

// benchEngine is what bench server needs of every package's Engine.
type benchEngine interface {
	comparable
	Stats() batch.Stats
	Close() error
}

// newEngines makes an engine on each device of devs with onDevice, or
// with no device one CPU engine with onCPU.
func newEngines[E benchEngine](devs []*device.Device, onDevice func(*device.Device) (E, error), onCPU func() E) ([]E, error) {
	if len(devs) == 0 {
		return []E{onCPU()}, nil
	}
	var engines []E
	for _, d := range devs {
		e, err := onDevice(d)
		if err != nil {
			closeEngines(engines)
			return nil, fmt.Errorf("%s: %w", d, err)
		}
		engines = append(engines, e)
	}
	return engines, nil
}

func closeEngines[E benchEngine](engines []E) {
	for _, e := range engines {
		e.Close()
	}
}

// warmedOn is newEngine followed by one call of warm on the device
// (batch.RouteDevice, then back to the default route), as a server does at
// start-up: the kernels are built then, not in the first batches of a
// measurement (which a lone request's CPU path would not build either).
func warmedOn[E interface {
	benchEngine
	SetRoute(batch.Route)
}](newEngine func(*device.Device) (E, error), warm func(E) error) func(*device.Device) (E, error) {
	return func(d *device.Device) (E, error) {
		e, err := newEngine(d)
		if err != nil {
			return e, err
		}
		e.SetRoute(batch.RouteDevice)
		err = warm(e)
		e.SetRoute(batch.RouteAuto)
		if err != nil {
			e.Close()
			var none E
			return none, fmt.Errorf("the first call on the device: %w", err)
		}
		return e, nil
	}
}

// engineTotals sums the Stats of engines, Calls included (batch.Stats.Add
// leaves them out).
func engineTotals[E benchEngine](engines []E) func() batch.Stats {
	return func() batch.Stats {
		var st batch.Stats
		for _, e := range engines {
			o := e.Stats()
			st.Calls += o.Calls
			st.Add(o)
		}
		return st
	}
}

// closer closes the Server s, then its engines.
func closer[E benchEngine](s interface{ Close() error }, engines []E) func() {
	return func() {
		s.Close()
		closeEngines(engines)
	}
}

// sameCaller is a newCaller whose callers all share call (no buffers of
// their own).
func sameCaller(call func(context.Context) error) func() func(context.Context) error {
	return func() func(context.Context) error { return call }
}

// sameGoCaller is a newGoCaller whose goroutines all share call.
func sameGoCaller(call func() error) func() func() error {
	return func() func() error { return call }
}

// checkEqual is check's comparison of the Server's result with Go's.
func checkEqual(op string, server, std []byte) error {
	if !bytes.Equal(server, std) {
		return fmt.Errorf("bench server: %s: the Server's result %x differs from Go's %x", op, server, std)
	}
	return nil
}

// errRejected is the error of a verification operation whose valid
// signature was refused.
var errRejected = errors.New("a valid signature rejected")

// serverDigest is the SHA-256 hash that the RSA and ECDSA operations sign.
var serverDigest = sha256.Sum256([]byte("gpucrypto bench server"))
