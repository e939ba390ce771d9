package mlkem

import (
	"bytes"

	"github.com/gpucrypto/gpucrypto/device"
)

// cloneRecords is a copy of records, consecutive values of one size: the
// results of a range of elements, which record hands out. It is one
// allocation, which bytes.Clone does not zero before it copies, made by
// the core that fills it, beside the device's work on other batches,
// rather than for the whole call on one core before its first batch.
func cloneRecords(records []byte) []byte { return bytes.Clone(records) }

// record is value k of records, values of size bytes each, its capacity
// its length: an append to it copies, rather than writing over value
// k + 1.
func record(records []byte, k, size int) []byte {
	return records[k*size : (k+1)*size : (k+1)*size]
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
