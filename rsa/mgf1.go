package rsa

import (
	"crypto"
	"hash"
	"sync"
)

// mgf1XOR XORs dst with MGF1(seed, len(dst)) over h (RFC 8017 B.2.1): the
// concatenation of h(seed || C) for the 32-bit big-endian counters C = 0,
// 1, 2, ... cut to len(dst) bytes. The time it takes depends only on the
// lengths.
func mgf1XOR(dst []byte, h hash.Hash, seed []byte) {
	var ctr [4]byte
	var block []byte
	for off := 0; off < len(dst); {
		h.Reset()
		h.Write(seed)
		h.Write(ctr[:])
		block = h.Sum(block[:0])
		off += xorInto(dst[off:], block)
		for i := 3; i >= 0; i-- { // counter + 1, big-endian
			ctr[i]++
			if ctr[i] != 0 {
				break
			}
		}
	}
}

// xorInto XORs src into the start of dst and returns the bytes changed.
func xorInto(dst, src []byte) int {
	n := min(len(dst), len(src))
	for i := range n {
		dst[i] ^= src[i]
	}
	return n
}

// hashPool keeps hash.Hash values of one function for the goroutines that
// encode or decode the elements of a call.
type hashPool struct{ sync.Pool }

func newHashPool(h crypto.Hash) *hashPool {
	return &hashPool{sync.Pool{New: func() any { return h.New() }}}
}

func (p *hashPool) get() hash.Hash { return p.Get().(hash.Hash) }
