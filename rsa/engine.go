package rsa

import (
	"bytes"
	stdrsa "crypto/rsa"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"filippo.io/bigmod"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
)

// Engine computes batches of RSA operations on one backend: a device
// (NewEngine) or all CPU cores (CPUEngine). It is safe for
// concurrent use.
//
// Every batched method takes parallel slices, one element per operation,
// and returns one result per element. Elements may use different keys of
// different sizes. An element that cannot be computed (bad key, wrong
// length, input not below the modulus, bad padding, failed fault check)
// has a nil result and its error in a *batch.Error; the other elements are
// unaffected. Slices of different lengths fail the whole call.
//
// Ciphertexts and signatures must be exactly as long as the modulus (RFC
// 8017 §7.1.2, §7.2.2, §8.2.2: "If the length of C is not k octets, output
// decryption error"); crypto/rsa's decryption functions read a shorter
// ciphertext as a number with zeros in front, and may accept it. Its
// length is public, so refusing it is no oracle.
//
// When the device fails during a batch, the batch is recomputed on the CPU
// and the failure is reported through OnFallback: results are never wrong
// and never missing because of a device fault.
type Engine struct {
	be  backend        // computes the batches: the device backend, or cpu
	cpu *cpuBackend    // the fallback (and be itself on a CPU engine)
	dev *device.Device // nil on a CPU engine

	blinding atomic.Bool
	cpuBelow atomic.Int64 // SetCPUBelow

	mu        sync.Mutex
	fallbacks batch.Fallbacks
	failHook  func() error // tests: simulate a device failure
}

// NewEngine returns an Engine that computes on dev (nil: device.Default()).
func NewEngine(dev *device.Device) (*Engine, error) {
	if dev == nil {
		var err error
		if dev, err = device.Default(); err != nil {
			return nil, err
		}
	}
	be, err := newDeviceBackend(dev)
	if err != nil {
		return nil, err
	}
	return &Engine{be: be, cpu: &cpuBackend{}, dev: dev}, nil
}

// CPUEngine returns an Engine that computes on all CPU cores (private
// operations in constant time, with filippo.io/bigmod).
func CPUEngine() *Engine {
	c := &cpuBackend{}
	return &Engine{be: c, cpu: c}
}

// Auto returns an Engine on the default device, or CPUEngine() when no
// device can be used; note then says why (it is nil when a device was
// found).
func Auto() (e *Engine, note error) {
	e, err := NewEngine(nil)
	if err != nil {
		return CPUEngine(), fmt.Errorf("rsa: using the CPU: %w", err)
	}
	return e, nil
}

// Device is the engine's device (nil for CPUEngine).
func (e *Engine) Device() *device.Device { return e.dev }

// String names the engine's backend.
func (e *Engine) String() string { return e.be.String() }

// SetBlinding turns blinding of private-key operations on or off (default
// off). With blinding, each input x is multiplied by r^e mod n before the
// private operation and the result by r^-1 mod n after it, for a random r
// kept per key (and squared after each use), so the backend never sees
// the attacker's chosen value. Both backends already run private
// operations in constant time (the device kernels, and filippo.io/bigmod
// on the CPU): blinding is defence in depth, for about four modular
// multiplications and a public-exponent check per operation, all in
// constant time too. Results are identical either way.
func (e *Engine) SetBlinding(on bool) { e.blinding.Store(on) }

// Blinding reports whether blinding is on.
func (e *Engine) Blinding() bool { return e.blinding.Load() }

// Warm builds, or loads from the kernel cache, every kernel that batches
// of keys of the given sizes (in bits, 1024 to 4096) may use on the
// engine's device, so that the first batch of each size and batch-size
// range does not wait for the compiler (about a second per kernel with
// NVIDIA's). A server calls it once at start-up with the sizes of its keys.
// A CPU engine has nothing to build.
func (e *Engine) Warm(keyBits ...int) error {
	d, ok := e.be.(*deviceBackend)
	if !ok {
		return nil
	}
	for _, bits := range keyBits {
		if err := d.warm(bits); err != nil {
			return err
		}
	}
	return nil
}

// SetCPUBelow sends backend calls of fewer than n elements (a call holds
// the elements of one size class of a batch) to the CPU backend
// (constant-time, on all cores) instead of the device; 0, the default,
// sends every call to the device. A device call has a floor of latency
// (on an H100, 4.2 ms for one RSA-2048 signature, 4.4 ms for 64: see
// docs/BENCHMARKS.md) that a few elements on the CPU cores beat: set n to
// where the two cross on your machine (gpucrypto bench --ops rsa2048
// --batch 1,16,64,256 shows both). Such calls are not fallbacks:
// OnFallback is not told.
func (e *Engine) SetCPUBelow(n int) { e.cpuBelow.Store(int64(max(n, 0))) }

// CPUBelow is the setting of SetCPUBelow.
func (e *Engine) CPUBelow() int { return int(e.cpuBelow.Load()) }

// OnFallback sets the function told about each device failure that sent a
// batch to the CPU (default: log.Print).
func (e *Engine) OnFallback(f func(error)) { e.fallbacks.OnFallback(f) }

// Fallbacks is the number of device calls recomputed on the CPU so far (one
// per size class of a failed batch).
func (e *Engine) Fallbacks() int { return e.fallbacks.Count() }

func (e *Engine) fellBack(err error) {
	e.fallbacks.Report(fmt.Errorf("rsa: %s failed, batch recomputed on the CPU: %w", e.be, err))
}

// private computes in[i]^d mod n under keys[i] into out[i] for every i
// with errs[i] == nil, and sets errs[i] for those that fail (their out[i]
// is then zero). Values are big-endian strings of the modulus's size
// (modBytes), in[i] below the modulus: the callers check both, once.
// Elements are grouped by size class here, once, one backend call per
// class.
func (e *Engine) private(keys []*privateKey, in, out [][]byte, errs []error) {
	var rinv []*bigmod.Nat // blinding: the factor that unblinds each result
	x := in
	if e.blinding.Load() {
		x = make([][]byte, len(in))
		rinv = make([]*bigmod.Nat, len(in))
		batch.Parallel(len(in), 16, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				if errs[i] == nil {
					x[i], rinv[i], errs[i] = keys[i].blind.blind(keys[i].pub, in[i]) // each call its own pair
				}
			}
		})
	}
	for _, idx := range groupBySize(len(in), errs, func(i int) [2]int { return keys[i].class() }) {
		ks := make([]*privateKey, len(idx))
		xs := make([][]byte, len(idx))
		outs := make([][]byte, len(idx))
		for j, i := range idx {
			ks[j], xs[j], outs[j] = keys[i], x[i], out[i]
		}
		verrs := e.run(len(idx), func(b backend) error { return b.private(ks, xs, outs) })
		for j, i := range idx {
			if errs[i] = verrs[j]; errs[i] != nil {
				clear(out[i])
			}
		}
	}
	if rinv != nil {
		batch.Parallel(len(in), 16, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				clear(x[i]) // blinded: nothing to learn from, but no need to keep it
				if errs[i] != nil {
					continue
				}
				pub := keys[i].pub
				if err := unblind(pub, out[i], rinv[i]); err != nil || !checkPrivate(pub, out[i], in[i]) {
					clear(out[i])
					errs[i] = ErrFault
				}
			}
		})
	}
}

// pipelined computes a byte-level batch of n elements with f, which
// computes the elements [lo, hi) from their bytes to their answers
// (padding or parsing, the private operation, encoding) and returns their
// results and errors (hi − lo of each). On a device engine a batch of
// more than pipelineChunk elements runs as chunks of about equal size,
// pipelineDepth at once, so that the host's padding and encoding of one
// chunk overlap the device work of another: a single large call keeps
// the device busy.
func (e *Engine) pipelined(n int, f func(lo, hi int) ([][]byte, []error)) ([][]byte, []error) {
	if e.be == backend(e.cpu) || n <= pipelineChunk {
		return f(0, n)
	}
	out := make([][]byte, n)
	errs := make([]error, n)
	batch.Chunks(n, batch.EvenChunk(n, pipelineChunk), pipelineDepth, func(lo, hi int) error {
		vals, verrs := f(lo, hi)
		copy(out[lo:hi], vals)
		copy(errs[lo:hi], verrs)
		return nil
	})
	return out, errs
}

// public computes in[i]^e mod n under keys[i] into out[i] for every i
// with errs[i] == nil, and sets errs[i] for those that fail; values as
// for private.
func (e *Engine) public(keys []*publicKey, in, out [][]byte, errs []error) {
	for _, idx := range groupBySize(len(in), errs, func(i int) int { return keys[i].limbs }) {
		ks := make([]*publicKey, len(idx))
		xs := make([][]byte, len(idx))
		outs := make([][]byte, len(idx))
		for j, i := range idx {
			ks[j], xs[j], outs[j] = keys[i], in[i], out[i]
		}
		verrs := e.run(len(idx), func(b backend) error { return b.public(ks, xs, outs) })
		for j, i := range idx {
			if errs[i] = verrs[j]; errs[i] != nil {
				clear(out[i])
			}
		}
	}
}

// run makes one backend call of n elements on the engine's backend, and on
// the CPU when the device fails as a whole. It returns one error (or nil)
// per element.
func (e *Engine) run(n int, call func(backend) error) []error {
	if e.be != backend(e.cpu) && int64(n) >= e.cpuBelow.Load() {
		e.mu.Lock()
		hook := e.failHook
		e.mu.Unlock()
		errs, err := split(n, e.be, call, hook)
		if err == nil {
			return errs
		}
		e.fellBack(err)
	}
	errs, err := split(n, e.cpu, call, nil)
	if err != nil { // the CPU never fails a whole call; if it did, so does every element
		errs = make([]error, n)
		for i := range errs {
			errs[i] = err
		}
	}
	return errs
}

// split calls be and returns its per-element errors, or a whole-call
// error: an error that is not a *batch.Error, one of the wrong length, or
// a panic.
func split(n int, be backend, call func(backend) error, hook func() error) (errs []error, err error) {
	defer func() {
		if p := recover(); p != nil {
			errs, err = nil, fmt.Errorf("rsa: %s panicked: %v", be, p)
		}
	}()
	if hook != nil {
		if err := hook(); err != nil {
			return nil, err
		}
	}
	err = call(be)
	var per *batch.Error
	if err != nil && !errors.As(err, &per) {
		return nil, err
	}
	if per == nil {
		return make([]error, n), nil
	}
	if len(per.Errs) != n {
		return nil, fmt.Errorf("rsa: %s answered %d errors for %d inputs", be, len(per.Errs), n)
	}
	return per.Errs, nil
}

// groupBySize returns the indices i < n with skip[i] == nil, grouped by
// class(i), groups in order of first appearance.
func groupBySize[C comparable](n int, skip []error, class func(i int) C) [][]int {
	var groups [][]int
	pos := map[C]int{}
	for i := range n {
		if skip[i] != nil {
			continue
		}
		c := class(i)
		g, ok := pos[c]
		if !ok {
			g = len(groups)
			pos[c] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}

// shapeError is the whole-call error of slices of different lengths.
func shapeError(names []string, lens ...int) error {
	for _, l := range lens[1:] {
		if l != lens[0] {
			s := "rsa: batch slices differ in length:"
			for i, n := range names {
				s += fmt.Sprintf(" %d %s", lens[i], n)
				if i < len(names)-1 {
					s += ","
				}
			}
			return errors.New(s)
		}
	}
	return nil
}

// modBytes is the size of the modulus of k in bytes.
func modBytes(k *publicKey) int { return (k.bits + 7) / 8 }

// checkInput checks a ciphertext or signature b for k: exactly the
// modulus size, and below the modulus (compared as public bytes). kind
// wraps the errors (ErrDecryption or ErrVerification), as crypto/rsa
// reports them. The engine's operations read b itself: no copy is made.
func checkInput(k *publicKey, b []byte, kind error) error {
	if len(b) != modBytes(k) {
		return fmt.Errorf("%w: %w (%d bytes, want %d)", kind, ErrInputSize, len(b), modBytes(k))
	}
	if bytes.Compare(b, k.nBytes) >= 0 {
		return fmt.Errorf("%w: %w", kind, ErrInputRange)
	}
	return nil
}

// valueSlab returns a string of the modulus's size for each element whose
// errs entry is nil (nil for the others), cut from one allocation: the
// scratch values of a call (encoded messages).
func valueSlab[K modulusSized](keys []K, errs []error) [][]byte {
	total := 0
	for i, k := range keys {
		if errs[i] == nil {
			total += modBytes(k.public())
		}
	}
	slab := make([]byte, total)
	out := make([][]byte, len(keys))
	for i, k := range keys {
		if errs[i] == nil {
			n := modBytes(k.public())
			out[i], slab = slab[:n:n], slab[n:]
		}
	}
	return out
}

// modulusSized is a prepared key of either kind (valueSlab).
type modulusSized interface{ public() *publicKey }

func (k *publicKey) public() *publicKey  { return k }
func (k *privateKey) public() *publicKey { return k.pub }

// preparePrivates prepares each key once per call (batches often repeat a
// key), setting errs[i] for keys that are unusable.
func preparePrivates(keys []*stdrsa.PrivateKey, errs []error) []*privateKey {
	return prepareEach(keys, errs, preparePrivate)
}

// preparePublics is preparePrivates for public keys.
func preparePublics(keys []*stdrsa.PublicKey, errs []error) []*publicKey {
	return prepareEach(keys, errs, preparePublic)
}

// prepareEach applies prepare to each distinct key once.
func prepareEach[K, V any](keys []*K, errs []error, prepare func(*K) (*V, error)) []*V {
	out := make([]*V, len(keys))
	type res struct {
		v   *V
		err error
	}
	seen := map[*K]res{}
	for i, k := range keys {
		r, ok := seen[k]
		if !ok {
			r.v, r.err = prepare(k)
			seen[k] = r
		}
		out[i], errs[i] = r.v, r.err
	}
	return out
}
