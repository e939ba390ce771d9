package mlkem

import (
	"bytes"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// record is value k of records, values of size bytes each, its capacity
// its length: an append to it copies, rather than writing over value
// k + 1.
func record(records []byte, k, size int) []byte {
	return records[k*size : (k+1)*size : (k+1)*size]
}

// unpackRecords hands out the device's records, size bytes for each of
// the elements [lo, lo+len(device)/size), as their results in out: an
// element with an error in errs gets none, and where secret its record is
// zeroed in the copy that its neighbours' results keep alive. Each piece
// of the pass has its elements' results in one copy of the device's
// (bytes.Clone, which does not zero before it copies), made by the core
// that fills it, beside the device's work on other batches, rather than
// for the whole call on one core before its first batch: a zeroed
// allocation and a copy for each element wrote each byte twice.
func unpackRecords(device []byte, size, lo int, out [][]byte, errs *engine.Errors, secret bool) {
	batch.Parallel(len(device)/size, hostChunk, func(a, b int) {
		records := bytes.Clone(device[a*size : b*size])
		for k := a; k < b; k++ {
			switch {
			case errs.Get(lo+k) == nil:
				out[lo+k] = record(records, k-a, size)
			case secret:
				clear(record(records, k-a, size))
			}
		}
	})
}

// putRecords writes value(k), size bytes, into record k of records for k
// in [lo, hi), or zeros where value(k) is nil.
func putRecords(records []byte, size, lo, hi int, value func(k int) []byte) {
	for k := lo; k < hi; k++ {
		r := records[k*size : (k+1)*size]
		if v := value(k); v != nil {
			copy(r, v[:size])
		} else {
			clear(r)
		}
	}
}

// wordBytes are the bytes of staging words.
func wordBytes(w []uint32) []byte { return device.Uint32Bytes(w) }
