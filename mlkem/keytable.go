package mlkem

import (
	"bytes"
	"crypto/subtle"
	"unsafe"

	"github.com/gpucrypto/gpucrypto/batch"
)

// keyTable is the table of keys of one device batch of encapsulations or
// decapsulations: consecutive elements with the same key (the requests of
// one key held by a server, say) share one entry, which the host uploads,
// and the device checks (encapsulation keys) or expands (seeds), once.
// Elements name their entry by its index.
type keyTable struct {
	// index is each element's entry (the batch's staging words, uploaded)
	index []uint32
	// first is each entry's first element, in the batch's numbering
	first []int
}

// tablePiece is the number of elements of one piece of the table's
// parallel passes.
const tablePiece = 4096

// newKeyTable builds the table of a batch of n elements into index (n
// words): same(k), for k ≥ 1, reports whether element k has the key of
// element k − 1. starts is scratch memory of n bytes.
func newKeyTable(n int, same func(k int) bool, index []uint32, starts []byte) keyTable {
	pieces := (n + tablePiece - 1) / tablePiece
	counts := make([]int, pieces+1)
	batch.Parallel(pieces, 1, func(a, b int) {
		for c := a; c < b; c++ {
			count := 0
			for k := c * tablePiece; k < min((c+1)*tablePiece, n); k++ {
				starts[k] = 0
				if k == 0 || !same(k) {
					starts[k] = 1
					count++
				}
			}
			counts[c+1] = count
		}
	})
	for c := range pieces {
		counts[c+1] += counts[c]
	}
	t := keyTable{index: index, first: make([]int, counts[pieces])}
	batch.Parallel(pieces, 1, func(a, b int) {
		for c := a; c < b; c++ {
			entry := counts[c] - 1 // the entry of the element before the piece
			for k := c * tablePiece; k < min((c+1)*tablePiece, n); k++ {
				if starts[k] == 1 {
					entry++
					t.first[entry] = k
				}
				index[k] = uint32(entry)
			}
		}
	})
	return t
}

// sameSeed reports whether a and b are the same seed of SeedSize bytes,
// in time that depends on their lengths and addresses only.
func sameSeed(a, b []byte) bool {
	if len(a) != SeedSize || len(b) != SeedSize {
		return false
	}
	return unsafe.SliceData(a) == unsafe.SliceData(b) || subtle.ConstantTimeCompare(a, b) == 1
}

// sameKey reports whether a and b are the same encapsulation key of size
// bytes (public values: a plain comparison).
func sameKey(a, b []byte, size int) bool {
	if len(a) != size || len(b) != size {
		return false
	}
	return unsafe.SliceData(a) == unsafe.SliceData(b) || bytes.Equal(a, b)
}
