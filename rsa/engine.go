package rsa

import (
	"bytes"
	stdrsa "crypto/rsa"
	"errors"
	"fmt"
	"math/big"
	"sync/atomic"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// Engine computes batches of RSA operations on one device (NewEngine) or
// on all CPU cores (CPUEngine). It is safe for concurrent use, and
// concurrent batches overlap: while the device computes one, the host
// prepares or finishes others.
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
// A device Engine computes each call where it is faster (SetRoute): on
// the device, or on the CPU cores with the CPU engine's constant-time
// code, as measured for the call's operation, key size and batch size
// while the engine runs. So a small batch, which a device's latency makes
// slow, runs on the CPU, and no call is slower than the CPU engine would
// be. When the device fails during a batch, or a result fails the sampled
// check of SetResultCheck, the batch is recomputed on the CPU and the
// failure reported through OnFallback (and the logger of SetLogger):
// results are never wrong and never missing because of a device fault.
//
// An Engine keeps the host and device buffers of recent batches for the
// next ones, zeroed where they held secrets, and the key tables of recent
// keys on the device; ReleaseBuffers frees them, Close frees everything.
//
// Its controls are batch.Engine's. The device checks every private-key
// result against the public key itself (a result it refuses is ErrFault);
// SetResultCheck adds the host's sampled check with the CPU engine's
// constant-time arithmetic, one result in 256 and the first of each batch
// in a new Engine.
type Engine struct {
	engine.Controls // batch.Engine's controls
	core            *engine.Core
	d               *deviceKernels // nil on a CPU engine
	blinding        atomic.Bool
	// corrupt, which only the package's tests set (NewFaultyCPUEngine),
	// alters the mod-p half of the CPU's private operations before
	// recombination (nil: nothing).
	corrupt func(mp *big.Int)
}

// defaultResultCheck is the setting of SetResultCheck of a new device
// Engine: the host checks about one device result in 256 (and the first
// of every batch).
const defaultResultCheck = 256

// NewEngine returns an Engine that computes on dev (nil: device.Default(),
// the device Auto chooses; where Auto would take the CPU engine, the error
// of Default, which says why). The kernels are built at the first batch
// of each key size, or by Warm.
func NewEngine(dev *device.Device) (*Engine, error) {
	if dev == nil {
		var err error
		if dev, err = device.Default(); err != nil {
			return nil, err
		}
	}
	core := engine.New("rsa", dev)
	e := &Engine{Controls: engine.ControlsOf(core), core: core, d: &deviceKernels{dev: dev, resident: newResidentKeys(dev)}}
	e.core.SetResultCheck(defaultResultCheck)
	e.core.OnClose(func() error {
		e.d.resident.dropAll()
		return nil
	})
	return e, nil
}

// CPUEngine returns an Engine that computes on all CPU cores (private
// operations in constant time, with filippo.io/bigmod). It is the CPU
// path of every device Engine too.
func CPUEngine() *Engine {
	core := engine.New("rsa", nil)
	return &Engine{Controls: engine.ControlsOf(core), core: core}
}

// Auto returns an Engine on the default device (device.Choose: a GPU,
// or GPUCRYPTO_DEVICE's choice), or CPUEngine() where there is none; the
// Choice says which and why.
func Auto() (*Engine, device.Choice) { return engine.Auto(NewEngine, CPUEngine) }

// ReleaseBuffers frees the host and device buffers that e keeps from
// finished batches and the key tables it keeps on the device (all zeroed
// where they held secrets). Batches that run meanwhile are not affected;
// later ones allocate and upload again.
func (e *Engine) ReleaseBuffers() {
	e.core.ReleaseBuffers()
	if e.d != nil {
		e.d.resident.dropAll()
	}
}

// SetBlinding turns blinding of private-key operations on or off (default
// off). With blinding, each input x is multiplied by r^e mod n before the
// private operation and the result by r^-1 mod n after it, for a random r
// kept per key (and squared after each use), so neither the device nor
// the CPU sees the attacker's chosen value. Both already run private
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
	return e.core.Use(func() error {
		if e.d == nil {
			return nil
		}
		for _, bits := range keyBits {
			if err := e.d.warm(bits); err != nil {
				return err
			}
		}
		return nil
	})
}

// call is one batch call of raw RSA operations as a byte-level method
// describes it: per element its key, the value to exponentiate and what
// becomes of the result. Engine.private and Engine.public run it as one
// job per size class of its keys (privateJob, publicJob); the jobs call
// input and output for distinct elements from several goroutines at
// once, only for the elements whose errs entry is nil when the call
// begins, and once per element unless a device batch fails (the CPU then
// computes its elements again).
type call[K modulusSized] struct {
	keys []K     // nil where errs[i] is set
	errs []error // the elements' errors: those found before, and the call's
	// out are the call's results (nil where an element failed): without
	// output, the raw results, each in its string of the modulus's size
	// (made where out[i] is nil); with output, what output puts there.
	out [][]byte
	// input writes into x (the modulus's size, the job's scratch) the
	// value to exponentiate for element i, below the modulus, and returns
	// x, or returns the caller's own string that holds it (a
	// ciphertext); an error fails the element.
	input func(i int, x []byte) ([]byte, error)
	// output, when set, consumes element i's result y, in the job's
	// scratch memory (zeroed afterwards): it unpads a decryption, say. An
	// error fails the element.
	output func(i int, y []byte) error
}

// value returns element i's value to exponentiate (input, in x), or its
// error.
func (c *call[K]) value(i int, x []byte) ([]byte, error) {
	size := modBytes(c.keys[i].public())
	v, err := c.input(i, x[:size])
	if err == nil && len(v) != size {
		err = errValueSize
	}
	return v, err
}

// inputs is a call's input where element i's value is the caller's string
// xs[i] as it is.
func inputs(xs [][]byte) func(i int, x []byte) ([]byte, error) {
	return func(i int, _ []byte) ([]byte, error) { return xs[i], nil }
}

// dst is where element i's result goes: out[i], or the scratch y.
func (c *call[K]) dst(i int, y []byte) []byte {
	size := modBytes(c.keys[i].public())
	if c.output != nil {
		return y[:size]
	}
	if c.out[i] == nil {
		c.out[i] = make([]byte, size)
	}
	return c.out[i]
}

// finish ends element i with its result y (dst), or with err: output
// consumes the result; a failed element's result is zeroed.
func (c *call[K]) finish(i int, y []byte, err error) {
	if err == nil && c.output != nil {
		err = c.output(i, y)
	}
	if err != nil {
		clear(y)
	}
	c.errs[i] = err
}

// private runs the private-key operations of c and returns its results
// and errors (run).
func (e *Engine) private(c *call[*privateKey]) ([][]byte, error) {
	blind := e.blinding.Load()
	return run(e, c, (*privateKey).class, func(els elements) (engine.Plan, engine.Job) {
		j := newPrivateJob(e, c, els, blind)
		return j.plan(), j
	})
}

// public runs the public-key operations of c (run).
func (e *Engine) public(c *call[*publicKey]) ([][]byte, error) {
	return run(e, c, func(k *publicKey) int { return k.limbs }, func(els elements) (engine.Plan, engine.Job) {
		j := newPublicJob(e, c, els)
		return j.plan(), j
	})
}

// run runs c on e as one job per size class of its keys (class; newJob
// makes the job of the elements els) and returns c.out, the failed
// elements' results set to nil, and their errors (nil or a *batch.Error),
// or the call's error as a whole (a closed engine).
func run[K modulusSized, C comparable](e *Engine, c *call[K], class func(K) C, newJob func(els elements) (engine.Plan, engine.Job)) ([][]byte, error) {
	if err := e.core.Err(); err != nil { // closed: even a call with no valid element fails
		return nil, err
	}
	for _, els := range groupBySize(len(c.keys), c.errs, func(i int) C { return class(c.keys[i]) }) {
		if err := e.core.Run(newJob(els)); err != nil {
			return nil, err
		}
	}
	for i, err := range c.errs {
		if err != nil && c.out != nil {
			c.out[i] = nil
		}
	}
	return c.out, batch.Collect(c.errs)
}

// elements are the elements of a call that one job computes: the call's
// elements idx, or all n of them in order (idx nil; a call of one size
// class with no element failed before, the common case: a call of a
// million elements then needs no index of a million entries before its
// first device batch).
type elements struct {
	idx []int
	n   int
}

// len is the number of elements.
func (e elements) len() int {
	if e.idx == nil {
		return e.n
	}
	return len(e.idx)
}

// at is the call's element of job element jj.
func (e elements) at(jj int) int {
	if e.idx == nil {
		return jj
	}
	return e.idx[jj]
}

// groupBySize returns the elements i < n with skip[i] == nil, grouped by
// class(i), groups in order of first appearance.
func groupBySize[C comparable](n int, skip []error, class func(i int) C) []elements {
	if n == 0 {
		return nil
	}
	if skip[0] == nil {
		first, all := class(0), true
		for i := 1; i < n && all; i++ {
			all = skip[i] == nil && class(i) == first
		}
		if all {
			return []elements{{n: n}}
		}
	}
	var groups []elements
	pos := map[C]int{}
	g, last := -1, *new(C) // the group of the element before: batches often repeat a class
	for i := range n {
		if skip[i] != nil {
			continue
		}
		if c := class(i); g < 0 || c != last {
			var ok bool
			if g, ok = pos[c]; !ok {
				g = len(groups)
				pos[c] = g
				size := 0
				if g == 0 { // room for all that remain: calls of one class are the common case
					size = n - i
				}
				groups = append(groups, elements{idx: make([]int, 0, size)})
			}
			last = c
		}
		groups[g].idx = append(groups[g].idx, i)
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

// valueSlab returns a string of the modulus's size for each key, cut from
// one allocation.
func valueSlab[K modulusSized](keys []K) [][]byte {
	total := 0
	for _, k := range keys {
		total += modBytes(k.public())
	}
	slab := make([]byte, total)
	out := make([][]byte, len(keys))
	for i, k := range keys {
		n := modBytes(k.public())
		out[i], slab = slab[:n:n], slab[n:]
	}
	return out
}

// modulusSized is a prepared key of either kind (call, valueSlab).
type modulusSized interface {
	comparable
	public() *publicKey
}

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
	var last *K
	var r res
	for i, k := range keys {
		if i == 0 || k != last { // batches often repeat a key
			var ok bool
			if r, ok = seen[k]; !ok {
				r.v, r.err = prepare(k)
				seen[k] = r
			}
			last = k
		}
		out[i], errs[i] = r.v, r.err
	}
	return out
}

var _ batch.Engine = (*Engine)(nil)
