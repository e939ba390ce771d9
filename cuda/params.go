package cuda

import (
	"fmt"
	"math"
	"sync"
	"unsafe"
)

// The memory that driver calls on hot paths read or write during the
// call, pooled: the address of a local variable passed to a driver call
// moves the variable to the heap (calls.go), an allocation per call.

// outParam is where a driver call writes its result.
type outParam struct {
	handle uintptr // CUevent
	ptr    uint64  // CUdeviceptr
	ms     float32 // elapsed time
}

var outParams = sync.Pool{New: func() any { return new(outParam) }}

func getOut() *outParam   { return outParams.Get().(*outParam) }
func (o *outParam) free() { outParams.Put(o) }

// launchParams are cuLaunchKernel's kernelParams (void **): ptrs, the
// address of each argument's value, and words, the values, each at a
// multiple of 8 bytes (every kernel parameter type used here is aligned
// to at most 8; the driver copies the values out at the launch). A value
// narrower than its words is their low bytes: hosts are little-endian.
//
// ptrs holds the addresses as integers, so no Go pointer lies in the
// memory handed to the driver (which would have to be pinned, per launch,
// under the cgo pointer rules): words stays reachable from the
// launchParams, which the caller keeps alive until the call returns, and
// the Go heap does not move.
type launchParams struct {
	ptrs  []uintptr
	words []uint64
}

var launchParamsPool = sync.Pool{New: func() any { return new(launchParams) }}

// getLaunchParams returns launchParams holding the values of args (see
// Stream.Launch) for a launch of the kernel named name.
func getLaunchParams(name string, args []any) (*launchParams, error) {
	p := launchParamsPool.Get().(*launchParams)
	if err := p.set(name, args); err != nil {
		p.free()
		return nil, err
	}
	return p, nil
}

func (p *launchParams) free() { launchParamsPool.Put(p) }

func (p *launchParams) set(name string, args []any) error {
	p.ptrs, p.words = p.ptrs[:0], p.words[:0]
	for i, a := range args {
		p.ptrs = append(p.ptrs, uintptr(len(p.words))) // the value's word; an address below
		switch x := a.(type) {
		case *Memory:
			ptr, err := x.span("Launch", 0, 0)
			if err != nil {
				return fmt.Errorf("cuda: Launch %s: argument %d: %w", name, i, err)
			}
			p.words = append(p.words, ptr)
		case uint32:
			p.words = append(p.words, uint64(x))
		case int32:
			p.words = append(p.words, uint64(uint32(x)))
		case uint64:
			p.words = append(p.words, x)
		case int64:
			p.words = append(p.words, uint64(x))
		case float32:
			p.words = append(p.words, uint64(math.Float32bits(x)))
		case float64:
			p.words = append(p.words, math.Float64bits(x))
		case []byte:
			if len(x) == 0 {
				return fmt.Errorf("cuda: Launch %s: argument %d is empty", name, i)
			}
			n := (len(x) + 7) / 8
			p.words = append(p.words, make([]uint64, n)...)
			copy(unsafe.Slice((*byte)(unsafe.Pointer(&p.words[len(p.words)-n])), 8*n), x)
		default:
			return fmt.Errorf("cuda: Launch %s: argument %d has unsupported type %T", name, i, a)
		}
	}
	if len(p.words) > 0 {
		base := uintptr(unsafe.Pointer(&p.words[0]))
		for i, w := range p.ptrs {
			p.ptrs[i] = base + 8*w
		}
	}
	return nil
}

// kernelParams is the kernelParams argument: nil for a kernel without
// parameters.
func (p *launchParams) kernelParams() unsafe.Pointer {
	if len(p.ptrs) == 0 {
		return nil
	}
	return unsafe.Pointer(&p.ptrs[0])
}
