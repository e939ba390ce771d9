package arith

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
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

// Engine runs the arith kernels on one device. It is safe for concurrent use.
type Engine struct {
	dev  *device.Device
	pool *device.Pool // device buffers of the batches
}

// bufferIdle is how long an Engine keeps the device buffers of its last
// batches for the next ones.
const bufferIdle = 10 * time.Second

// NewEngine returns an engine on dev (nil: device.Default()). Programs are
// built on first use (and kept in the disk cache): Run builds arith.cl,
// ModExp the Montgomery kernels of the sizes it meets.
func NewEngine(dev *device.Device) (*Engine, error) {
	if dev == nil {
		var err error
		if dev, err = device.Default(); err != nil {
			return nil, err
		}
	}
	return &Engine{dev: dev, pool: dev.NewPool(bufferIdle)}, nil
}

// arithProgram builds arith.cl (once per device).
func (e *Engine) arithProgram() (*device.Program, error) {
	p, err := e.dev.Program(kernels.Program("arith.cl", nil))
	if err != nil {
		return nil, fmt.Errorf("arith: building kernels for %s: %w", e.dev.Name, err)
	}
	return p, nil
}

// Device is the engine's device.
func (e *Engine) Device() *device.Device { return e.dev }

// Result is the output of Run.
type Result struct {
	Out    *Batch        // sum, difference or product
	Carry  []uint32      // carry (add) or borrow (sub) out of each element; nil for mul
	Kernel time.Duration // device time of the kernel alone
}

// Run applies op to the limb-major batches a and b (same width and count)
// on the device.
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
	prog, err := e.arithProgram()
	if err != nil {
		return nil, err
	}
	k, err := prog.Kernel(fmt.Sprintf("arith_%s_%d", op, 32*a.Limbs))
	if err != nil {
		return nil, err
	}
	lease := e.pool.Lease(nil)
	defer lease.Release()
	da, err := lease.Upload(a.Words, false)
	if err != nil {
		return nil, err
	}
	db, err := lease.Upload(b.Words, false)
	if err != nil {
		return nil, err
	}
	dr, err := lease.Buffer(4*outLimbs*a.Count, false)
	if err != nil {
		return nil, err
	}
	count := uint32(a.Count)
	var ev *device.Event
	res := &Result{Out: NewBatch(outLimbs, a.Count)}
	if op == OpMul {
		ev, err = k.Launch(a.Count, 128, dr, da, db, count)
	} else {
		var dc *device.Buffer
		if dc, err = lease.Buffer(4*a.Count, false); err != nil {
			return nil, err
		}
		if ev, err = k.Launch(a.Count, 128, dr, dc, da, db, count); err == nil {
			res.Carry = make([]uint32, a.Count)
			err = dc.Read(0, device.Uint32Bytes(res.Carry))
		}
	}
	if err != nil {
		return nil, err
	}
	defer ev.Release()
	if err := dr.Read(0, device.Uint32Bytes(res.Out.Words)); err != nil {
		return nil, err
	}
	if res.Kernel, err = ev.Duration(); err != nil {
		return nil, err
	}
	return res, nil
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
