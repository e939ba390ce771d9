package arith

import (
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"slices"
	"sync/atomic"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// Op is a batched arithmetic operation.
type Op string

const (
	OpAdd Op = "add" // (a + b) mod 2^bits, carry out
	OpSub Op = "sub" // (a − b) mod 2^bits, borrow out
	OpMul Op = "mul" // a × b, 2·bits wide
)

// Ops lists the operations in a stable order.
var Ops = []Op{OpAdd, OpSub, OpMul}

// Widths are the operand sizes, in bits, that the kernels support.
func Widths() []int {
	var out []int
	for _, n := range kernels.ArithLimbs() {
		out = append(out, 32*n)
	}
	return out
}

// CheckWidth returns the number of limbs for bits, or an error naming the
// supported sizes.
func CheckWidth(bits int) (int, error) {
	if bits%32 == 0 && slices.Contains(kernels.ArithLimbs(), bits/32) {
		return bits / 32, nil
	}
	return 0, fmt.Errorf("arith: unsupported width %d bits (have %v)", bits, Widths())
}

// Engine runs the arith kernels on one device (NewEngine), or the same
// operations on the CPU cores (CPUEngine). It is safe for concurrent use.
// A device Engine computes each call where it measured faster
// (SetRoute), and recomputes on the CPU a batch its device fails. Its
// controls are batch.Engine's.
type Engine struct {
	engine.Controls // batch.Engine's controls
	core            *engine.Core
}

// NewEngine returns an engine on dev (nil: device.Default(), the device
// Auto chooses; where Auto would take the CPU engine, the error of
// Default, which says why). Programs are built on first use (and kept in
// the disk cache): Run builds arith.cl, ModExp the Montgomery kernels of
// the sizes it meets.
func NewEngine(dev *device.Device) (*Engine, error) {
	if dev == nil {
		var err error
		if dev, err = device.Default(); err != nil {
			return nil, err
		}
	}
	core := engine.New("arith", dev)
	return &Engine{Controls: engine.ControlsOf(core), core: core}, nil
}

// CPUEngine returns an Engine that computes on the CPU cores: Run, Add,
// Sub and Mul with math/bits, the exponentiations in constant time with
// filippo.io/bigmod.
func CPUEngine() *Engine {
	core := engine.New("arith", nil)
	return &Engine{Controls: engine.ControlsOf(core), core: core}
}

// Auto returns an Engine on a GPU (device.Choose), or CPUEngine() where
// there is none; the Choice says which and why.
func Auto() (*Engine, device.Choice) { return engine.Auto(NewEngine, CPUEngine) }

// arithProgram builds arith.cl (once per device).
func (e *Engine) arithProgram() (*device.Program, error) {
	dev := e.core.Device()
	p, err := dev.Program(kernels.Program("arith.cl", nil))
	if err != nil {
		return nil, fmt.Errorf("arith: building kernels for %s: %w", dev.Name, err)
	}
	return p, nil
}

// Result is the output of Run.
type Result struct {
	Out    *Batch        // sum, difference or product
	Carry  []uint32      // carry (add) or borrow (sub) out of each element; nil for mul
	Kernel time.Duration // device time of the kernels (0 on the CPU)
}

// Run applies op to the limb-major batches a and b (same width and count).
func (e *Engine) Run(op Op, a, b *Batch) (*Result, error) {
	if a == nil || b == nil {
		return nil, errors.New("arith: nil batch")
	}
	if a.Limbs != b.Limbs || a.Count != b.Count {
		return nil, fmt.Errorf("arith: %s: operands differ in shape (%d×%d limbs vs %d×%d)", op, a.Count, a.Limbs, b.Count, b.Limbs)
	}
	if _, err := CheckWidth(32 * a.Limbs); err != nil {
		return nil, err
	}
	if a.Count <= 0 {
		return nil, fmt.Errorf("arith: %s: empty batch", op)
	}
	if len(a.Words) != a.Limbs*a.Count || len(b.Words) != b.Limbs*b.Count {
		return nil, fmt.Errorf("arith: %s: batch storage does not match its shape", op)
	}
	outLimbs := a.Limbs
	if op == OpMul {
		outLimbs *= 2
	} else if op != OpAdd && op != OpSub {
		return nil, fmt.Errorf("arith: unknown operation %q", op)
	}
	if uint64(outLimbs)*uint64(a.Count) >= 1<<31 {
		return nil, fmt.Errorf("arith: %s: batch of %d too large for one launch", op, a.Count)
	}
	j := &opJob{e: e, op: op, a: a, b: b, res: &Result{Out: NewBatch(outLimbs, a.Count)}}
	if op != OpMul {
		j.res.Carry = make([]uint32, a.Count)
	}
	if err := e.core.Run(engine.Plan{Op: "arith " + string(op), Size: 32 * a.Limbs, N: a.Count}, j); err != nil {
		return nil, err
	}
	j.res.Kernel = time.Duration(j.kernel.Load())
	return j.res, nil
}

// opJob is one call of Run.
type opJob struct {
	e      *Engine
	op     Op
	a, b   *Batch
	res    *Result
	kernel atomic.Int64 // device time, ns
}

// Device implements engine.Job: the elements [lo, hi) through the
// arith kernel (the rows of the range copied in and out when it is not
// the whole batch).
func (j *opJob) Device(ch *engine.Chunk) error {
	prog, err := j.e.arithProgram()
	if err != nil {
		return err
	}
	k, err := prog.Kernel(fmt.Sprintf("arith_%s_%d", j.op, 32*j.a.Limbs))
	if err != nil {
		return err
	}
	lo, hi, count := ch.Lo, ch.Hi, j.a.Count
	n, L, out := hi-lo, j.a.Limbs, j.res.Out
	a, b, r := rows(j.a.Words, L, count, lo, hi), rows(j.b.Words, L, count, lo, hi), outRows(out.Words, out.Limbs, count, lo, hi)
	var carry []uint32
	if j.res.Carry != nil {
		carry = j.res.Carry[lo:hi]
	}
	err = ch.Run(func(cmds *device.Commands) error {
		da, err := cmds.Upload(a, false)
		if err != nil {
			return err
		}
		db, err := cmds.Upload(b, false)
		if err != nil {
			return err
		}
		dr, err := cmds.Buffer(4*len(r), false)
		if err != nil {
			return err
		}
		if carry == nil {
			if err := cmds.Launch(k, n, 128, dr, da, db, uint32(n)); err != nil {
				return err
			}
			return cmds.Read(dr, device.Uint32Bytes(r))
		}
		dc, err := cmds.Buffer(4*n, false)
		if err != nil {
			return err
		}
		if err := cmds.Launch(k, n, 128, dr, dc, da, db, uint32(n)); err != nil {
			return err
		}
		if err := cmds.Read(dr, device.Uint32Bytes(r)); err != nil {
			return err
		}
		return cmds.Read(dc, device.Uint32Bytes(carry))
	})
	j.kernel.Add(int64(ch.DeviceTime()))
	if err != nil {
		return err
	}
	putRows(out.Words, r, out.Limbs, count, lo, hi)
	return nil
}

// CPU implements engine.Job: the elements [lo, hi) with math/bits.
func (j *opJob) CPU(lo, hi int) {
	L, count := j.a.Limbs, j.a.Count
	batch.Parallel(hi-lo, 256, func(s, t int) {
		x, y, z := make([]uint32, L), make([]uint32, L), make([]uint32, 2*L)
		for i := lo + s; i < lo+t; i++ {
			for k := range L {
				x[k], y[k] = j.a.Words[k*count+i], j.b.Words[k*count+i]
			}
			var c uint32
			switch j.op {
			case OpAdd:
				for k := range L {
					z[k], c = bits.Add32(x[k], y[k], c)
				}
			case OpSub:
				for k := range L {
					z[k], c = bits.Sub32(x[k], y[k], c)
				}
			default:
				mulLimbs(z, x, y)
			}
			j.res.Out.SetLimbs(i, z[:j.res.Out.Limbs])
			if j.res.Carry != nil {
				j.res.Carry[i] = c
			}
		}
	})
}

// mulLimbs writes the full product x·y into z (len(x)+len(y) limbs).
func mulLimbs(z, x, y []uint32) {
	clear(z)
	for i, xi := range x {
		var c uint32
		for k, yk := range y {
			hi, lo := bits.Mul32(xi, yk)
			var c1, c2 uint32
			lo, c1 = bits.Add32(lo, z[i+k], 0)
			lo, c2 = bits.Add32(lo, c, 0)
			z[i+k], c = lo, hi+c1+c2
		}
		z[i+len(y)] = c
	}
}

// rows returns the columns [lo, hi) of the limb-major rows src (L rows of
// count words): src itself for the whole batch, else a copy.
func rows(src []uint32, L, count, lo, hi int) []uint32 {
	if lo == 0 && hi == count {
		return src
	}
	n := hi - lo
	dst := make([]uint32, L*n)
	for k := range L {
		copy(dst[k*n:(k+1)*n], src[k*count+lo:k*count+hi])
	}
	return dst
}

// outRows is where a device batch reads its results of the columns
// [lo, hi) of the limb-major rows dst (L rows of count words): dst itself
// for the whole batch, else new rows, which putRows copies into dst.
func outRows(dst []uint32, L, count, lo, hi int) []uint32 {
	if lo == 0 && hi == count {
		return dst
	}
	return make([]uint32, L*(hi-lo))
}

// putRows writes the rows of columns [lo, hi) (L rows of hi − lo words)
// into the limb-major rows dst (L rows of count words); nothing for the
// whole batch, whose rows outRows gave as dst itself.
func putRows(dst, src []uint32, L, count, lo, hi int) {
	if lo == 0 && hi == count {
		return
	}
	n := hi - lo
	for k := range L {
		copy(dst[k*count+lo:k*count+hi], src[k*n:(k+1)*n])
	}
}

// Add returns (a[i] + b[i]) mod 2^bits and the carry out of each element.
// Elements that are nil, negative or wider than bits fail alone: their
// result is nil and the returned *batch.Error says why.
func (e *Engine) Add(bits int, a, b []*big.Int) ([]*big.Int, []uint32, error) {
	return e.ints(OpAdd, bits, a, b)
}

// Sub returns (a[i] − b[i]) mod 2^bits and the borrow out of each element.
func (e *Engine) Sub(bits int, a, b []*big.Int) ([]*big.Int, []uint32, error) {
	return e.ints(OpSub, bits, a, b)
}

// Mul returns the full products a[i] × b[i].
func (e *Engine) Mul(bits int, a, b []*big.Int) ([]*big.Int, error) {
	out, _, err := e.ints(OpMul, bits, a, b)
	return out, err
}

func (e *Engine) ints(op Op, bits int, a, b []*big.Int) ([]*big.Int, []uint32, error) {
	limbs, err := CheckWidth(bits)
	if err != nil {
		return nil, nil, err
	}
	if len(a) != len(b) {
		return nil, nil, fmt.Errorf("arith: %s: %d left operands but %d right operands", op, len(a), len(b))
	}
	if len(a) == 0 {
		return nil, nil, nil
	}
	ba, bb := NewBatch(limbs, len(a)), NewBatch(limbs, len(b))
	errs := make([]error, len(a))
	for i := range a {
		if err := ba.Set(i, a[i]); err != nil {
			errs[i] = fmt.Errorf("left operand: %w", err)
		} else if err := bb.Set(i, b[i]); err != nil {
			errs[i] = fmt.Errorf("right operand: %w", err)
		}
	}
	res, err := e.Run(op, ba, bb)
	if err != nil {
		return nil, nil, err
	}
	out := make([]*big.Int, len(a))
	for i := range out {
		if errs[i] == nil {
			out[i] = res.Out.Get(i)
		} else if res.Carry != nil {
			res.Carry[i] = 0
		}
	}
	return out, res.Carry, batch.Collect(errs)
}

var _ batch.Engine = (*Engine)(nil)
