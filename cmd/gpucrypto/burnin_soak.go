package main

import (
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
)

// The soak (burnin --soak) does in one process, until --duration, what a
// long-lived server does to the library: it makes Engines of every
// algorithm on the device and Servers over them, calls them from many
// goroutines at once (through the Servers, one operation per call, and on
// the Engines directly, in batches whose sizes keep changing: a few
// elements, a medium batch, the operation's large default, anything in
// between), with the Engines on the device, on the CPU or choosing per
// call (batch.RouteDevice, RouteCPU, RouteAuto, changed while calls run),
// and closes Servers and Engines while calls are in flight on other
// goroutines. Every result is checked against Go's crypto packages (or
// values they computed beforehand); a call refused because what it went
// through was being closed must fail with an error wrapping
// batch.ErrClosed. A wrong result, any other error, a panic (the process
// ends) or a call that does not return fails the soak.
//
// Each operation cycles on its own goroutine: an Engine lives one cycle
// (about --cycle), and Servers over it come and go within the cycle.

// soakOperation is an operation the soak runs: one of burnin's (the
// largest batch of its direct calls is burnin's batch of it), and how
// the soak makes its family.
type soakOperation struct {
	name      string // its name in --ops, and in the default list
	algorithm string // its algorithm in internal/registry
	// pattern, where set, is a pattern of burnin (burninOpPatterns) all
	// of whose names the soak takes too, with this family: "rsaNNNN";
	// patternHelp says what they are.
	pattern, patternHelp string
	// family makes the family of the operation called name (name, or one
	// of pattern's), its cases (RSA keys from r's pool) made from rng
	// before the clock matters.
	family func(r *soakRun, name string, rng *mrand.Rand) (soakFamily, error)
}

// soakOperations are the operations of the soak: one per algorithm with
// a Server, or more (tables.go).
var soakOperations = newTable(func(op soakOperation) string { return op.algorithm })

// soakOpNames are the operations of the soak, in the default order.
func soakOpNames() []string {
	var names []string
	for _, op := range soakOperations.all() {
		names = append(names, op.name)
	}
	return names
}

// soakOperationOf is the soak's operation of the --ops name.
func soakOperationOf(name string) (soakOperation, error) {
	ops := soakOperations.all()
	for _, op := range ops {
		if op.name == name {
			return op, nil
		}
	}
	if p, ok := burninPatternOf(name); ok {
		for _, op := range ops {
			if op.pattern == p.pattern {
				return op, nil
			}
		}
	}
	have := strings.Join(soakOpNames(), ", ")
	for _, op := range ops {
		if op.pattern != "" {
			have += "; " + op.pattern + ": " + op.patternHelp
		}
	}
	return soakOperation{}, fmt.Errorf("burnin --soak: --ops %q: not an operation of the soak (its operations: %s)", name, have)
}

// soakHang is how long the soak waits for the calls of a closed Server or
// Engine to return before it calls them hung (a variable: tests shorten it).
var soakHang = 2 * time.Minute

// soakFamily makes the Engines of one operation of the soak.
type soakFamily interface {
	newEngine(d *device.Device) (soakEngine, error)
}

// soakEngine is an Engine of the soak: its settings, direct calls of n
// random cases (each checked), and Servers over it.
type soakEngine interface {
	SetRoute(batch.Route)
	OnFallback(func(error))
	Stats() batch.Stats
	Close() error
	// call runs one batch of n random cases on the Engine and checks
	// every result; the error is the call's as a whole (nil where it ran).
	call(c *soakCheck, n int) error
	newServer(opts batch.Options) (soakServer, error)
}

// soakServer is a Server of the soak: one random checked operation
// through it, and its Close.
type soakServer interface {
	call(c *soakCheck) error
	Close() error
}

// soakOp is one operation of the soak and its counts.
type soakOp struct {
	name   string
	large  int // the largest batch of a direct call (burnin's batch for the operation, or --batch)
	family soakFamily

	engines, servers         atomic.Int64    // made
	serverCalls, engineCalls atomic.Int64    // completed and checked
	elements                 atomic.Int64    // of the engine calls
	closed                   atomic.Int64    // calls refused with batch.ErrClosed while closing, as they must be
	mismatches, errs         atomic.Int64    // wrong results; unexpected errors and hung calls
	fallbacks                atomic.Int64    // device batches recomputed on the CPU
	onDevice, onCPU          atomic.Int64    // elements the closed Engines computed on the device and on the CPU (batch.Stats)
	routes                   [3]atomic.Int64 // Engines set to each of soakRoutes

	mu           sync.Mutex
	firstProblem string
}

// problem records the first wrong result or unexpected error of op.
func (op *soakOp) problem(what string) {
	op.mu.Lock()
	if op.firstProblem == "" {
		op.firstProblem = what
	}
	op.mu.Unlock()
}

// soakRun is one soak on one device.
type soakRun struct {
	opts     burninOptions
	dev      *device.Device
	log      *failureLog
	keys     *rsaKeyPool
	stderr   io.Writer
	ops      []*soakOp
	deadline time.Time   // set by run
	hung     atomic.Bool // a call did not return after a Close: the soak stops
}

// soakCheck is what the checks of one goroutine of the soak use: its
// random source and the operation whose counts and failures they report.
type soakCheck struct {
	run *soakRun
	op  *soakOp
	rng *mrand.Rand
}

// mismatch records a wrong result: counted, and written to the failures
// file with the inputs that reproduce it.
func (c *soakCheck) mismatch(what string, input, got, want map[string]string) {
	c.op.mismatches.Add(1)
	c.op.problem(what)
	c.run.log.add(&burninFailure{Op: c.op.name, Device: c.run.dev.Name, Backend: c.run.dev.Backend, Seed: c.run.opts.seed,
		Batch: -1, Case: -1, What: "soak: " + what, Input: input, Got: got, Want: want})
}

// bytes are n random bytes.
func (c *soakCheck) bytes(n int) []byte {
	p := make([]byte, n)
	for i := 0; i < n; i += 8 {
		v := c.rng.Uint64()
		for j := i; j < min(i+8, n); j++ {
			p[j] = byte(v)
			v >>= 8
		}
	}
	return p
}

// batchSize draws the size of a direct call: a few elements, a medium
// batch, the large default, or anything up to it.
func (c *soakCheck) batchSize() int {
	large := c.op.large
	switch c.rng.IntN(8) {
	case 0, 1, 2:
		return 1 + c.rng.IntN(min(4, large))
	case 3, 4:
		return max(1, large/16)
	case 5:
		return large
	}
	return 1 + c.rng.IntN(large)
}

// soakRoutes are the routes an Engine of the soak is set to.
var soakRoutes = []batch.Route{batch.RouteDevice, batch.RouteCPU, batch.RouteAuto}

// setRoute sets e to a random route and counts it.
func (c *soakCheck) setRoute(e soakEngine) {
	i := c.rng.IntN(len(soakRoutes))
	e.SetRoute(soakRoutes[i])
	c.op.routes[i].Add(1)
}

// serverOptions are random batch.Options for a Server: the defaults, or
// small batches, short or no waits, one batch or more in flight, with or
// without the CPU path.
func (c *soakCheck) serverOptions() batch.Options {
	var o batch.Options
	if c.rng.IntN(2) == 0 {
		o.MaxBatch = []int{1, 8, 64, 1024}[c.rng.IntN(4)]
	}
	if c.rng.IntN(2) == 0 {
		o.MaxDelay = []time.Duration{time.Microsecond, 100 * time.Microsecond, 5 * time.Millisecond}[c.rng.IntN(3)]
	}
	if c.rng.IntN(2) == 0 {
		o.Pipeline = 1 + c.rng.IntN(3)
	}
	if c.rng.IntN(3) == 0 {
		o.CPUOffload = -1 // every request batched
	}
	if c.rng.IntN(3) == 0 {
		o.AnswerPiece = []int{-1, 1, 16, 128}[c.rng.IntN(4)]
		o.AnswerAlongside = c.rng.IntN(2) == 0
	}
	return o
}

// newSoakRun prepares the soak of ops on d.
func newSoakRun(o burninOptions, d *device.Device, log *failureLog, keys *rsaKeyPool, stderr io.Writer) (*soakRun, error) {
	r := &soakRun{opts: o, dev: d, log: log, keys: keys, stderr: stderr}
	for _, name := range o.ops {
		op, err := burninOpNamed(name)
		if err != nil {
			return nil, err
		}
		large := op.batchCPU
		if d.Type == device.TypeGPU {
			large = op.batchGPU
		}
		if o.batch > 0 {
			large = o.batch
		}
		fam, err := r.family(name)
		if err != nil {
			return nil, err
		}
		r.ops = append(r.ops, &soakOp{name: name, large: large, family: fam})
	}
	return r, nil
}

// family is the soak's family of the operation name, its cases made
// (RSA keys included) before the clock matters.
func (r *soakRun) family(name string) (soakFamily, error) {
	op, err := soakOperationOf(name)
	if err != nil {
		return nil, err
	}
	return op.family(r, name, mrand.New(mrand.NewChaCha8(r.seed(name, 0))))
}

// seed is the seed of goroutine number of op: the soak's inputs depend on
// --seed (the order in which goroutines meet does not).
func (r *soakRun) seed(op string, number int64) [32]byte {
	return (&burninRun{opts: r.opts}).batchSeed("soak "+op, number)
}

// run soaks every operation at once until the deadline; the error says
// a call hung.
func (r *soakRun) run() error {
	var wg sync.WaitGroup
	done := make(chan struct{})
	var progress sync.WaitGroup
	start := time.Now()
	r.deadline = start.Add(r.opts.duration) // the cases were made before: not counted
	if r.opts.progress > 0 {
		progress.Add(1)
		go func() {
			defer progress.Done()
			tick := time.NewTicker(r.opts.progress)
			defer tick.Stop()
			for {
				select {
				case <-done:
					return
				case <-tick.C:
					r.progressLines(time.Since(start))
				}
			}
		}()
	}
	for _, op := range r.ops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.cycles(op)
		}()
	}
	wg.Wait()
	close(done)
	progress.Wait()
	r.progressLines(time.Since(start))
	if r.hung.Load() {
		return errors.New("burnin --soak: calls did not return after a Close (the goroutines are above)")
	}
	return nil
}

// progressLines prints one line per operation: its counts so far.
func (r *soakRun) progressLines(elapsed time.Duration) {
	for _, op := range r.ops {
		fmt.Fprintf(r.stderr, "soak %-8s engines %d servers %d  server calls %d  engine calls %d (%d elements)  refused after close %d  mismatches %d  errors %d  fallbacks %d  (%s)\n",
			op.name, op.engines.Load(), op.servers.Load(), op.serverCalls.Load(), op.engineCalls.Load(), op.elements.Load(),
			op.closed.Load(), op.mismatches.Load(), op.errs.Load(), op.fallbacks.Load(), elapsed.Round(time.Second))
	}
}

// cycles cycles op's Engines until the deadline (or a hang).
func (r *soakRun) cycles(op *soakOp) {
	var goroutines atomic.Int64 // numbers the goroutines, for their seeds
	c := &soakCheck{run: r, op: op, rng: mrand.New(mrand.NewChaCha8(r.seed(op.name, goroutines.Add(1))))}
	for time.Now().Before(r.deadline) && !r.hung.Load() {
		if err := r.cycle(op, c, &goroutines); err != nil {
			op.errs.Add(1)
			op.problem(err.Error())
			fmt.Fprintf(r.stderr, "soak %s: %v\n", op.name, err)
			time.Sleep(100 * time.Millisecond) // a device that cannot make an Engine: not a busy loop
		}
	}
}

// closing is the state of a Server or an Engine that the soak closes:
// calls refused with batch.ErrClosed are expected once it is set.
type closing struct{ atomic.Bool }

// failed sorts the error of a call through something that closing
// watches (or two: a Server and its Engine): refused after a Close
// (expected: the caller stops), or unexpected (counted; the caller goes
// on). It reports whether the caller should stop.
func (c *soakCheck) failed(err error, what string, closings ...*closing) (stop bool) {
	if errors.Is(err, batch.ErrClosed) {
		for _, cl := range closings {
			if cl.Load() {
				c.op.closed.Add(1)
				return true
			}
		}
	}
	c.op.errs.Add(1)
	c.op.problem(fmt.Sprintf("%s: unexpected error: %v", what, err))
	return errors.Is(err, batch.ErrClosed) // closed before anyone closed it: stop, the error is counted
}

// cycle runs one Engine of op for about --cycle: direct callers on it
// throughout, Servers over it one after another with their callers, each
// Server closed while its callers are in flight; at the end the Engine is
// closed under its direct callers (or, one cycle in four, under the
// callers of its last Server, which is closed after).
func (r *soakRun) cycle(op *soakOp, c *soakCheck, goroutines *atomic.Int64) error {
	span := r.opts.cycle/2 + time.Duration(c.rng.Int64N(int64(r.opts.cycle)+1))
	end := time.Now().Add(span)
	if end.After(r.deadline) {
		end = r.deadline
	}
	e, err := op.family.newEngine(r.dev)
	if err != nil {
		return fmt.Errorf("making an Engine: %w", err)
	}
	// the first Engine of each operation starts on the device and stays
	// there through its first Server: every soak has device work
	first := op.engines.Add(1) == 1
	e.OnFallback(func(err error) {
		op.fallbacks.Add(1)
		if r.opts.strict {
			op.problem(err.Error())
		}
	})
	if first {
		e.SetRoute(batch.RouteDevice)
		op.routes[0].Add(1)
	} else {
		c.setRoute(e)
	}
	defer func() {
		st := e.Stats()
		op.onDevice.Add(st.DeviceOps)
		op.onCPU.Add(st.CPUOps)
	}()
	var engineClosing closing
	newCheck := func() *soakCheck {
		return &soakCheck{run: r, op: op, rng: mrand.New(mrand.NewChaCha8(r.seed(op.name, goroutines.Add(1))))}
	}
	var direct sync.WaitGroup
	for range r.opts.workers {
		direct.Add(1)
		go func() {
			defer direct.Done()
			dc := newCheck()
			for !r.hung.Load() {
				n := dc.batchSize()
				if err := e.call(dc, n); err != nil {
					if dc.failed(err, "engine call", &engineClosing) {
						return
					}
					continue
				}
				op.engineCalls.Add(1)
				op.elements.Add(int64(n))
			}
		}()
	}
	engineFirst := c.rng.IntN(4) == 0
	for {
		srv, err := e.newServer(c.serverOptions())
		if err != nil {
			engineClosing.Store(true)
			r.close(e, op, "an Engine")
			r.wait(&direct, op, "the direct calls of a closed Engine")
			return fmt.Errorf("making a Server: %w", err)
		}
		op.servers.Add(1)
		var serverClosing closing
		var callers sync.WaitGroup
		for range r.opts.callers {
			callers.Add(1)
			go func() {
				defer callers.Done()
				sc := newCheck()
				for !r.hung.Load() {
					if err := srv.call(sc); err != nil {
						if sc.failed(err, "server call", &serverClosing, &engineClosing) {
							return
						}
						continue
					}
					op.serverCalls.Add(1)
				}
			}()
		}
		// a Server lives a third of the cycle or so; the route changes
		// while it serves
		life := time.Duration(c.rng.Int64N(int64(span)/3 + 1))
		last := !time.Now().Add(life).Before(end)
		if last {
			life = time.Until(end)
		}
		sleep(life / 2)
		if !first {
			c.setRoute(e)
		}
		first = false
		sleep(life - life/2)
		if last && engineFirst {
			// the Engine goes while the Server's callers and the direct
			// ones are in flight; then the Server
			engineClosing.Store(true)
			r.close(e, op, "an Engine under its Server's callers")
			serverClosing.Store(true)
			r.close(srv, op, "a Server whose Engine was closed")
			r.wait(&callers, op, "the callers of a Server whose Engine was closed")
			r.wait(&direct, op, "the direct calls of a closed Engine")
			return nil
		}
		serverClosing.Store(true)
		r.close(srv, op, "a Server under its callers")
		r.wait(&callers, op, "the callers of a closed Server")
		if last {
			break
		}
	}
	engineClosing.Store(true)
	r.close(e, op, "an Engine under its direct callers")
	r.wait(&direct, op, "the direct calls of a closed Engine")
	return nil
}

// close closes c (a Server or an Engine, described by what) while calls
// are in flight; a Close that fails, or has not returned after soakHang,
// is a problem of op (a hang ends the soak).
func (r *soakRun) close(c interface{ Close() error }, op *soakOp, what string) {
	if r.hung.Load() {
		return // the soak is ending: nothing more is waited for
	}
	done := make(chan error, 1)
	go func() { done <- c.Close() }()
	select {
	case err := <-done:
		if err != nil {
			op.errs.Add(1)
			op.problem(fmt.Sprintf("closing %s: %v", what, err))
		}
	case <-time.After(soakHang):
		r.hang(op, "closing "+what)
	}
}

// wait waits for the goroutines of wg, which a Close has told to end; if
// they have not after soakHang, the soak is hung (hang; the goroutines
// are left).
func (r *soakRun) wait(wg *sync.WaitGroup, op *soakOp, what string) {
	if r.hung.Load() {
		return
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(soakHang):
		r.hang(op, what)
	}
}

// hang records that what did not return within soakHang: a problem of
// op, every goroutine's stack on stderr (once), and the end of the soak.
func (r *soakRun) hang(op *soakOp, what string) {
	op.errs.Add(1)
	op.problem(fmt.Sprintf("%s did not return within %v", what, soakHang))
	if !r.hung.Swap(true) {
		fmt.Fprintf(r.stderr, "soak %s: %s did not return within %v; every goroutine:\n", op.name, what, soakHang)
		pprof.Lookup("goroutine").WriteTo(r.stderr, 2)
	}
}

// sleep sleeps d (nothing for d ≤ 0).
func sleep(d time.Duration) {
	if d > 0 {
		time.Sleep(d)
	}
}

// failed reports whether the soak found a problem.
func (r *soakRun) failed() bool {
	for _, op := range r.ops {
		if op.mismatches.Load() > 0 || op.errs.Load() > 0 || (r.opts.strict && op.fallbacks.Load() > 0) {
			return true
		}
	}
	return r.hung.Load()
}

// soakResult is one operation of the soak in the JSON report.
type soakResult struct {
	Device      string `json:"device"`
	Backend     string `json:"backend"`
	Op          string `json:"op"`
	LargeBatch  int    `json:"large_batch"`
	Engines     int64  `json:"engines"`
	Servers     int64  `json:"servers"`
	ServerCalls int64  `json:"server_calls"`
	EngineCalls int64  `json:"engine_calls"`
	Elements    int64  `json:"engine_elements"`
	// Closed are the calls refused with batch.ErrClosed because their
	// Server or Engine was being closed, as they must be.
	Closed     int64 `json:"refused_after_close"`
	Mismatches int64 `json:"mismatches"`
	Errors     int64 `json:"unexpected_errors"`
	Fallbacks  int64 `json:"fallbacks"`
	// OnDevice and OnCPU are the elements the Engines computed on the
	// device and on the CPU (their Servers' requests included).
	OnDevice     int64  `json:"elements_on_device"`
	OnCPU        int64  `json:"elements_on_cpu"`
	RouteDevice  int64  `json:"route_device"`
	RouteCPU     int64  `json:"route_cpu"`
	RouteAuto    int64  `json:"route_auto"`
	FirstProblem string `json:"first_problem,omitempty"`
}

// results are the soak's counts per operation.
func (r *soakRun) results() []soakResult {
	var out []soakResult
	for _, op := range r.ops {
		out = append(out, soakResult{Device: r.dev.Name, Backend: r.dev.Backend, Op: op.name, LargeBatch: op.large,
			Engines: op.engines.Load(), Servers: op.servers.Load(), ServerCalls: op.serverCalls.Load(), EngineCalls: op.engineCalls.Load(),
			Elements: op.elements.Load(), Closed: op.closed.Load(), Mismatches: op.mismatches.Load(), Errors: op.errs.Load(),
			Fallbacks: op.fallbacks.Load(), OnDevice: op.onDevice.Load(), OnCPU: op.onCPU.Load(), RouteDevice: op.routes[0].Load(), RouteCPU: op.routes[1].Load(), RouteAuto: op.routes[2].Load(),
			FirstProblem: op.firstProblem})
	}
	return out
}

// printSoakReport writes the table of a device's soak and its verdict.
func printSoakReport(w io.Writer, r *soakRun, results []soakResult) {
	fmt.Fprintf(w, "soak on %s (%s), seed %d, %d callers per Server, %d direct callers per Engine, cycles of about %v\n",
		r.dev.Name, r.dev.Backend, r.opts.seed, r.opts.callers, r.opts.workers, r.opts.cycle)
	t := newRowTable(w, column{"op", 9}, column{"engines", 0}, column{"servers", 0}, column{"server calls", 0},
		column{"engine calls", 0}, column{"elements", 0}, column{"on device", 0}, column{"on CPU", 0}, column{"refused after close", 0},
		column{"mismatches", 0}, column{"errors", 0}, column{"fallbacks", 0})
	var mismatches, errs, fallbacks int64
	for _, s := range results {
		t.row(s.Op, fmt.Sprint(s.Engines), fmt.Sprint(s.Servers), fmt.Sprint(s.ServerCalls), fmt.Sprint(s.EngineCalls),
			fmt.Sprint(s.Elements), fmt.Sprint(s.OnDevice), fmt.Sprint(s.OnCPU), fmt.Sprint(s.Closed), fmt.Sprint(s.Mismatches), fmt.Sprint(s.Errors), fmt.Sprint(s.Fallbacks))
		mismatches += s.Mismatches
		errs += s.Errors
		fallbacks += s.Fallbacks
	}
	for _, s := range results {
		if s.FirstProblem != "" {
			fmt.Fprintf(w, "%s: first problem: %s\n", s.Op, s.FirstProblem)
		}
	}
	verdict := "PASS"
	if r.failed() {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "%s: %d mismatches, %d unexpected errors, %d fallbacks to the CPU", verdict, mismatches, errs, fallbacks)
	if fallbacks > 0 && !r.opts.strict {
		fmt.Fprint(w, " (results right, but the device failed; --strict fails on them)")
	}
	fmt.Fprintln(w)
}

// checkSoakOps refuses an operation the soak does not have.
func checkSoakOps(ops []string) error {
	for _, name := range ops {
		if _, err := soakOperationOf(name); err != nil {
			return err
		}
	}
	return nil
}
