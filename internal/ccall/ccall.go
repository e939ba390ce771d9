// Package ccall calls C functions of a library opened with purego, by
// address, for the driver calls on hot paths (packages cl and cuda): with
// neither the reflection of a purego.RegisterFunc function nor an
// allocation per call.
//
// purego.SyscallN alone allocates: it is go:uintptrescapes, which makes
// its ...uintptr slice escape, so each call puts its arguments on the
// heap. The functions here take a fixed number of arguments and hand
// SyscallN a pooled array instead.
//
// They are go:uintptrescapes themselves, so the unsafe.Pointer rule of
// syscall.Syscall holds for them: convert a pointer to uintptr in the
// call expression itself, as in ccall.Call2(fn, h, uintptr(unsafe.Pointer(p))),
// and the compiler keeps what it points at alive, on the heap, until the
// call returns. A pointer to a local variable therefore moves that
// variable to the heap (an allocation): hot paths pass the addresses of
// fields of objects that are there already.
//
// Each argument fills one uintptr (64-bit hosts), and so does the result:
// a C function returning a 32-bit int leaves the upper half undefined, so
// truncate it (int32(r)). Narrower integer arguments are passed widened;
// the callee reads their low bits. No argument may be a floating-point
// value (SyscallN passes those in integer registers).
package ccall

import (
	"sync"

	"github.com/ebitengine/purego"
)

// frame holds the arguments of one call for SyscallN (15 at most).
type frame [15]uintptr

var frames = sync.Pool{New: func() any { return new(frame) }}

// call calls fn with the first n arguments of f, and gives f back.
func (f *frame) call(fn uintptr, n int) uintptr {
	r, _, _ := purego.SyscallN(fn, f[:n]...)
	frames.Put(f)
	return r
}

func get() *frame { return frames.Get().(*frame) }

// Call1 calls the C function at fn with one argument and returns its
// result register.
//
//go:uintptrescapes
func Call1(fn, a1 uintptr) uintptr {
	f := get()
	f[0] = a1
	return f.call(fn, 1)
}

// Call2 is Call1 with two arguments.
//
//go:uintptrescapes
func Call2(fn, a1, a2 uintptr) uintptr {
	f := get()
	f[0], f[1] = a1, a2
	return f.call(fn, 2)
}

// Call3 is Call1 with three arguments.
//
//go:uintptrescapes
func Call3(fn, a1, a2, a3 uintptr) uintptr {
	f := get()
	f[0], f[1], f[2] = a1, a2, a3
	return f.call(fn, 3)
}

// Call4 is Call1 with four arguments.
//
//go:uintptrescapes
func Call4(fn, a1, a2, a3, a4 uintptr) uintptr {
	f := get()
	f[0], f[1], f[2], f[3] = a1, a2, a3, a4
	return f.call(fn, 4)
}

// Call5 is Call1 with five arguments.
//
//go:uintptrescapes
func Call5(fn, a1, a2, a3, a4, a5 uintptr) uintptr {
	f := get()
	f[0], f[1], f[2], f[3], f[4] = a1, a2, a3, a4, a5
	return f.call(fn, 5)
}

// Call9 is Call1 with nine arguments.
//
//go:uintptrescapes
func Call9(fn, a1, a2, a3, a4, a5, a6, a7, a8, a9 uintptr) uintptr {
	f := get()
	f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8] = a1, a2, a3, a4, a5, a6, a7, a8, a9
	return f.call(fn, 9)
}

// Call11 is Call1 with eleven arguments.
//
//go:uintptrescapes
func Call11(fn, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11 uintptr) uintptr {
	f := get()
	f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10] = a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11
	return f.call(fn, 11)
}
