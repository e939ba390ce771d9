package rsa

import (
	"fmt"
	"math/big"

	"filippo.io/bigmod"

	"github.com/gpucrypto/gpucrypto/arith"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// A job's device batches are at most pipelineChunk elements (private ones
// fewer where the modexp kernel's tables need it), pipelineDepth at once:
// while the device computes one batch, the host encodes the next one's
// inputs and checks and decodes the previous one's results, so one large
// call keeps the device as busy as two pipelined callers. 65,536 is
// chosen as enough elements for the modexp kernel to fill a large GPU.
var pipelineChunk = 1 << 16 // a variable for the tests

const pipelineDepth = 2

// job is what privateJob and publicJob share: the call's elements els,
// whose keys have one size class, computed on the device (Prepare,
// Device, Finish) or on the CPU (CPU), each from its input to its output,
// so that encoding and decoding run in the pipeline next to the device
// work of other batches.
type job[K modulusSized] struct {
	e        *Engine
	c        *call[K]
	els      elements   // the call's elements, by job element
	mf       arith.Mont // the modulus's device form
	widthErr error
	// set by Prepare for the device batches
	positions map[K]uint32 // each key's position in the tables
	tables    keyTables
	release   func(failed bool)
}

// prepare sets the device keys of the elements [lo, hi): each key's form
// (form, once per key), its position in the tables (layout) of width
// class width, resident or uploaded by each batch. Each batch looks up
// its elements' positions itself (keyColumns), in the pipeline.
func (j *job[K]) prepare(lo, hi int, width string, form func(K) (*deviceForm, error), layout func([]*deviceForm) [][]uint32) ([]*deviceForm, error) {
	if j.widthErr != nil {
		return nil, j.widthErr
	}
	keys, forms, err := distinctKeys(j.c.keys, j.els, lo, hi, form)
	if err != nil {
		return nil, err
	}
	var slots []uint32
	j.tables, slots, j.release = j.e.d.keyTables(width, forms, layout)
	j.positions = make(map[K]uint32, len(keys))
	for p, k := range keys {
		j.positions[k] = uint32(p)
		if slots != nil {
			j.positions[k] = slots[p]
		}
	}
	return forms, nil
}

// keyColumns writes into kidx the table position of the key of each of
// the batch's columns (r.cols).
func (r *rows[K]) keyColumns(kidx []uint32) {
	j := r.j
	var last K
	var pos uint32
	for col, k := range r.cols {
		if key := j.c.keys[j.els.at(r.ch.Lo+k)]; col == 0 || key != last { // batches often repeat a key
			last, pos = key, j.positions[key]
		}
		kidx[col] = pos
	}
}

// Finish implements engine.Preparer: the end of the job's use of its key
// tables (a failed batch drops resident ones).
func (j *job[K]) Finish(failed bool) {
	if j.release != nil {
		j.release(failed)
	}
}

// cpu computes the elements [lo, hi) on all cores with compute, which
// writes the result of element i's value v into y.
func (j *job[K]) cpu(lo, hi int, compute func(i int, v, y []byte) error) {
	batch.Parallel(hi-lo, 1, func(a, b int) {
		var xb, yb [MaxKeyBits / 8]byte
		for jj := lo + a; jj < lo+b; jj++ {
			i := j.els.at(jj)
			y := j.c.dst(i, yb[:])
			v, err := j.c.value(i, xb[:])
			if err == nil {
				err = compute(i, v, y)
			}
			j.c.finish(i, y, err)
		}
		clear(xb[:]) // encoded messages, padded plaintexts
		clear(yb[:])
	})
}

// privateJob is the private-key operations of one size class of keys
// within a call (an engine.Job).
type privateJob struct {
	job[*privateKey]
	class [2]int
	blind bool
	mh    arith.Mont // the halves' device form
	// tests: fault injection (faults) was on when the job was made; fault
	// is the job element whose mp rsa_combine corrupts (-1: none)
	inject bool
	fault  int64
}

func newPrivateJob(e *Engine, c *call[*privateKey], els elements, blind bool) *privateJob {
	j := &privateJob{job: job[*privateKey]{e: e, c: c, els: els}, class: c.keys[els.at(0)].class(), blind: blind, fault: -1}
	if e.d != nil {
		j.mh, j.mf, j.widthErr = e.d.widths(j.class[0], j.class[1], 2*els.len()) // two halves per element
		if faults != nil {
			j.inject, j.fault = true, faults.Swap(-1)
		}
	}
	return j
}

// plan is the job's engine.Plan: device batches as large as the modexp
// kernel's tables of both halves allow.
func (j *privateJob) plan() engine.Plan {
	p := engine.Plan{Op: "RSA private", Size: 32 * j.class[1], N: j.els.len(), Depth: pipelineDepth}
	if j.e.d != nil && j.widthErr == nil {
		limit := arith.TableLimit(j.e.d.dev)
		if tableLimit > 0 {
			limit = tableLimit
		}
		p.Chunk = min(j.mh.ChunkElems(p.N, 2, limit), pipelineChunk)
	}
	return p
}

// Prepare implements engine.Preparer.
func (j *privateJob) Prepare(lo, hi int) error {
	d := j.e.d
	width := d.widthClass(j.mh, j.mf)
	forms, err := j.prepare(lo, hi, width, func(k *privateKey) (*deviceForm, error) { return d.deviceFormOf(k, width, j.mh, j.mf) },
		func(forms []*deviceForm) [][]uint32 { return privateTables(forms, j.mh, j.mf) })
	j.tables.check = newCheckSchedule(forms)
	return err
}

// Device implements engine.Job.
func (j *privateJob) Device(ch *engine.Chunk) error { return j.onDevice(ch, j.e.d.runPrivate) }

// privateBatch is a device batch of a private job in staging memory: the
// inputs xs and key positions kidx of its m columns, the results vals and
// check flags ok, and (tests) the column whose mp rsa_combine corrupts.
type privateBatch struct {
	j                  *privateJob
	xs, kidx, vals, ok []uint32
	fault              uint32
}

// onDevice computes the batch ch: each element's input (blinded when the
// job blinds) into limb columns, run (the device work: runPrivate; tests
// stand in for it), the results out of the columns into their strings,
// ErrFault where the device's own check failed, the sampled host check
// (a failure sends the batch to the CPU), and each element's unblinding
// and output.
func (j *privateJob) onDevice(ch *engine.Chunk, run func(ch *engine.Chunk, b *privateBatch) error) error {
	c, F := j.c, j.mf.W
	var r *rows[*privateKey]
	var blind func(k, i int, v []byte) ([]byte, error) // nil: the inputs as they are
	var unblindResult func(k, i int) error             // nil: the results as they are
	if j.blind {
		rinv := make([]*bigmod.Nat, ch.Hi-ch.Lo) // the factors that unblind the results
		plain := make([][]byte, ch.Hi-ch.Lo)     // the inputs before blinding
		blind = func(k, i int, v []byte) ([]byte, error) {
			plain[k] = v
			b, ri, err := c.keys[i].blind.blind(c.keys[i].pub, v)
			rinv[k] = ri
			return b, err
		}
		unblindResult = func(k, i int) error { return unblind(c.keys[i].pub, r.out[k], rinv[k], plain[k]) }
	}
	r = j.newRows(ch, blind)
	if j.blind {
		defer func() {
			for _, v := range r.in {
				clear(v) // blinded: nothing to learn from, but no need to keep it
			}
		}()
	}
	m := len(r.cols)
	if m == 0 {
		return nil
	}
	words, err := ch.Words(2*F*m + 2*m)
	if err != nil {
		return err
	}
	b := &privateBatch{j: j, xs: words[:F*m], vals: words[F*m : 2*F*m], ok: words[2*F*m : 2*F*m+m], kidx: words[2*F*m+m:], fault: 0xffffffff}
	r.keyColumns(b.kidx)
	for col, k := range r.cols {
		if int64(ch.Lo+k) == j.fault {
			b.fault = uint32(col)
		}
	}
	putColumns(b.xs, F, m, func(col int) []byte { return r.in[r.cols[col]] }) // every word is written
	ch.ZeroAfterUpload(device.Uint32Bytes(b.xs))                              // while the kernels run
	if err := run(ch, b); err != nil {
		return err
	}
	getColumns(b.vals, F, m, func(col int) []byte {
		k := r.cols[col]
		if b.ok[col] != 1 {
			c.errs[j.els.at(ch.Lo+k)] = ErrFault
			return nil
		}
		r.out[k] = c.dst(j.els.at(ch.Lo+k), r.y(k))
		return r.out[k]
	})
	ch.Zeroed(device.Uint32Bytes(b.vals)) // by getColumns
	if err := engine.Check(ch.Sample(), func(jj int) bool {
		k := jj - ch.Lo
		return r.out[k] == nil || checkPrivate(c.keys[j.els.at(jj)].pub, r.out[k], r.in[k])
	}); err != nil {
		return err
	}
	r.finish(unblindResult)
	return nil
}

// CPU implements engine.Job: the constant-time arithmetic of the CPU
// engine.
func (j *privateJob) CPU(lo, hi int) {
	j.cpu(lo, hi, func(i int, v, y []byte) error {
		k := j.c.keys[i]
		ck, err := k.constantTime()
		if err != nil {
			return err
		}
		if !j.blind {
			return ck.private(v, y, j.e.corrupt)
		}
		bv, rinv, err := k.blind.blind(k.pub, v)
		if err != nil {
			return err
		}
		defer clear(bv)
		if err := ck.private(bv, y, j.e.corrupt); err != nil {
			return err
		}
		return unblind(k.pub, y, rinv, v)
	})
}

// publicJob is the public-key operations of one size class of moduli
// within a call (an engine.Job).
type publicJob struct {
	job[*publicKey]
	limbs int
}

func newPublicJob(e *Engine, c *call[*publicKey], els elements) *publicJob {
	j := &publicJob{job: job[*publicKey]{e: e, c: c, els: els}, limbs: c.keys[els.at(0)].limbs}
	if e.d != nil {
		_, j.mf, j.widthErr = e.d.widths(0, j.limbs, 0)
	}
	return j
}

// plan is the job's engine.Plan: device batches whose values fit half of
// the device's largest allocation.
func (j *publicJob) plan() engine.Plan {
	p := engine.Plan{Op: "RSA public", Size: 32 * j.limbs, N: j.els.len(), Depth: pipelineDepth}
	if j.e.d != nil && j.widthErr == nil {
		p.Chunk = max(1, min(int(j.e.d.dev.MaxAlloc/2/uint64(4*j.mf.W)), pipelineChunk))
	}
	return p
}

// Prepare implements engine.Preparer.
func (j *publicJob) Prepare(lo, hi int) error {
	F := j.mf.W
	width := fmt.Sprintf("%p/pub/%d", j.e.d, F)
	_, err := j.prepare(lo, hi, width, func(k *publicKey) (*deviceForm, error) {
		if v, ok := k.cache.Load(width); ok {
			return v.(*deviceForm), nil
		}
		c, err := arith.NewConstants(k.n, F)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidKey, err)
		}
		v, _ := k.cache.LoadOrStore(width, &deviceForm{n: c, e: uint32(k.e)})
		return v.(*deviceForm), nil
	}, func(forms []*deviceForm) [][]uint32 { return [][]uint32{keyTable(forms, 0, F)} })
	return err
}

// Device implements engine.Job: the inputs into limb columns xs,
// rsa_public on the device, the results out of xs (which may have held
// plaintexts: getColumns zeroes it) and each element's output.
func (j *publicJob) Device(ch *engine.Chunk) error {
	F := j.mf.W
	r := j.newRows(ch, nil)
	m := len(r.cols)
	if m == 0 {
		return nil
	}
	words, err := ch.Words(F*m + m)
	if err != nil {
		return err
	}
	xs, kidx := words[:F*m], words[F*m:]
	r.keyColumns(kidx)
	putColumns(xs, F, m, func(col int) []byte { return r.in[r.cols[col]] })
	if err := ch.Run(func(cmds *device.Commands) error { return j.e.d.enqueuePublic(cmds, j.mf, j.tables, xs, kidx) }); err != nil {
		return err
	}
	getColumns(xs, F, m, func(col int) []byte {
		k := r.cols[col]
		r.out[k] = j.c.dst(j.els.at(ch.Lo+k), r.y(k))
		return r.out[k]
	})
	ch.Zeroed(device.Uint32Bytes(xs)) // by getColumns
	r.finish(nil)
	return nil
}

// CPU implements engine.Job: math/big (nothing in it is secret).
func (j *publicJob) CPU(lo, hi int) {
	j.cpu(lo, hi, func(i int, v, y []byte) error {
		k := j.c.keys[i]
		x := new(big.Int).SetBytes(v)
		if x.Cmp(k.n) >= 0 {
			return ErrInputRange
		}
		x.Exp(x, big.NewInt(int64(k.e)), k.n).FillBytes(y)
		return nil
	})
}

// rows are a device batch's values in staging memory: each element's
// value to exponentiate (in) and result (out, once computed), and its
// columns: the offsets from ch.Lo of the elements whose input is good.
type rows[K modulusSized] struct {
	j       *job[K]
	ch      *engine.Chunk
	in, out [][]byte
	cols    []int
	scratch []byte // each element's x (input), then, with call.output, its y
	stride  int
}

// newRows computes the inputs of the elements of ch (call.value, then
// prep, when set: blinding), setting the errors of those that fail.
func (j *job[K]) newRows(ch *engine.Chunk, prep func(k, i int, v []byte) ([]byte, error)) *rows[K] {
	n := ch.Hi - ch.Lo
	r := &rows[K]{j: j, ch: ch, in: make([][]byte, n), out: make([][]byte, n), stride: 4 * j.mf.W}
	size := n * r.stride
	if j.c.output != nil {
		size *= 2
	}
	r.scratch = ch.Scratch(size) // host work only: ordinary memory, zeroed after the batch
	batch.Parallel(n, 256, func(a, b int) {
		for k := a; k < b; k++ {
			i := j.els.at(ch.Lo + k)
			v, err := j.c.value(i, r.scratch[k*r.stride:(k+1)*r.stride])
			if err == nil && prep != nil {
				v, err = prep(k, i, v)
			}
			if err != nil {
				j.c.errs[i] = err
				continue
			}
			r.in[k] = v
		}
	})
	for k, v := range r.in {
		if v != nil {
			r.cols = append(r.cols, k)
		}
	}
	return r
}

// y is element k's scratch result (nil without call.output: none).
func (r *rows[K]) y(k int) []byte {
	if r.j.c.output == nil {
		return nil
	}
	n := len(r.in)
	return r.scratch[(n+k)*r.stride : (n+k+1)*r.stride]
}

// finish ends every element with a result (call.finish) after check (nil:
// none) of element k, call element i.
func (r *rows[K]) finish(check func(k, i int) error) {
	batch.Parallel(len(r.out), 256, func(a, b int) {
		for k := a; k < b; k++ {
			if r.out[k] == nil {
				continue
			}
			i := r.j.els.at(r.ch.Lo + k)
			var err error
			if check != nil {
				err = check(k, i)
			}
			r.j.c.finish(i, r.out[k], err)
		}
	})
}
