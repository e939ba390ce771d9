package ccall

import (
	"bytes"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
)

// libc opens the C library for calls to test with, or skips.
func libc(tb testing.TB) uintptr {
	h, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		tb.Skipf("no libc.so.6: %v", err)
	}
	return h
}

func symbol(tb testing.TB, h uintptr, name string) uintptr {
	s, err := purego.Dlsym(h, name)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// Arguments in order and at their width, pointers to Go memory, results,
// and no allocation.
func TestCall(t *testing.T) {
	h := libc(t)
	memset, strlen := symbol(t, h, "memset"), symbol(t, h, "strlen")
	buf := make([]byte, 8)
	// memset(buf+1, 0x1AB (the callee takes the int's low byte), 5)
	Call3(memset, uintptr(unsafe.Pointer(&buf[1])), 0x1AB, 5)
	if want := []byte{0, 0xAB, 0xAB, 0xAB, 0xAB, 0xAB, 0, 0}; !bytes.Equal(buf, want) {
		t.Errorf("memset: % x, want % x", buf, want)
	}
	s := []byte("gpucrypto\x00")
	if n := Call1(strlen, uintptr(unsafe.Pointer(&s[0]))); n != 9 {
		t.Errorf("strlen = %d, want 9", n)
	}
	if n := testing.AllocsPerRun(100, func() { Call1(strlen, uintptr(unsafe.Pointer(&s[0]))) }); n != 0 {
		t.Errorf("%v allocations per call", n)
	}
}

// BenchmarkCall is the cost of a call of a trivial C function (labs) by
// each means: the floor under every driver call.
func BenchmarkCall(b *testing.B) {
	labs := symbol(b, libc(b), "labs")
	var registered func(int64) int64
	purego.RegisterFunc(&registered, labs)
	b.Run("registerfunc", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			registered(-3)
		}
	})
	b.Run("syscalln", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			purego.SyscallN(labs, 3)
		}
	})
	b.Run("ccall", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Call1(labs, 3)
		}
	})
}
