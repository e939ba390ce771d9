package aes

import (
	"crypto/cipher"
	"encoding/binary"
	"runtime"

	"github.com/gpucrypto/gpucrypto/batch"
)

// The CPU path of Seal and Open. A message is crypto/cipher's GCM of its
// key (made once per key: Key.heldGCM), the messages spread over all
// cores in contiguous ranges. A message long enough to leave cores idle
// (one large message, or a few) is cut into pieces computed on all cores,
// each with crypto/cipher from its own counter block: to seal, in one pass
// by crypto/cipher's GCM under a nonce chosen for that counter block
// (sealPieceCPU); to open, in GCM's counter mode with crypto/cipher's CTR
// after the GHASH value of its ciphertext (ghashW, gcmPieceCPU). The host
// chains the pieces' values into the tag (gcmTag) in constant time. GHASH
// is linear: the value of a text is that of its first part times H to the
// number of blocks of the rest, plus the rest's.

// The pieces of a message that the CPU cuts: at least cpuPieceLeast bytes
// (less would cost more in starting them than they compute), at most
// cpuPieceMost (to open, a piece is read twice, for GHASH and for the
// counter mode: small enough to stay in a core's cache between the two).
const (
	cpuPieceLeast = 64 << 10
	cpuPieceMost  = 256 << 10
)

// CPU implements engine.Job: the units [lo, hi) on all cores, whole
// messages with crypto/cipher's GCM (gcmOne), pieces of large messages in
// counter mode and GHASH (gcmPieceCPU), and long messages or pieces cut
// into pieces on all cores when there are too few to keep the cores busy.
//
// The keys of the whole messages that Prepare did not hold for the device
// are read in a pass of keyReaders, each checked when its message is
// computed (cpuHold); a message whose key Prepare could not hold has
// failed and is left as it is.
func (j *gcmJob) CPU(lo, hi int) {
	epoch := readers.enter()
	defer readers.exit(epoch)
	if j.longest < 2*cpuPieceLeast {
		batch.Parallel(hi-lo, 1, func(a, b int) {
			for k := lo + a; k < lo+b; k++ {
				j.cpuUnit(k, j.unit(k))
			}
		})
		return
	}
	j.cpuCut(lo, hi)
}

// cpuHold reports whether whole unit k may be computed by the pass of
// keyReaders that CPU entered: Prepare holds its key, or the key is open
// (Close has not begun: it waits for the pass). It fails the unit when
// its key is closed.
func (j *gcmJob) cpuHold(k int, u gcmUnit) bool {
	if held, prepared := j.holds(k); prepared {
		return held
	}
	if j.msgs[u.msg].Key.closed.Load() {
		j.fail(u.msg, ErrKeyDestroyed)
		return false
	}
	return true
}

// cpuUnit computes unit k, u, on the calling goroutine.
func (j *gcmJob) cpuUnit(k int, u gcmUnit) {
	if u.piece < 0 {
		if !j.cpuHold(k, u) {
			return
		}
		m := &j.msgs[u.msg]
		dst := j.out[u.msg]
		if dst == nil {
			dst = m.Out[:resultLen(bodyLen(m, j.open, -1), j.open)] // resultSlot, without its second write
		}
		out, err := gcmOne(m, j.open, dst)
		j.out[u.msg] = out
		if err != nil || j.errs[u.msg] != nil { // the errors are nil until one is written
			j.errs[u.msg] = err
		}
		if err != nil {
			j.failed.Store(true)
		}
		return
	}
	lm := j.large[u.msg] // held since the check
	// cpuCut gave the message whole to its first piece
	if lm.whole {
		out, err := gcmOne(&j.msgs[u.msg], j.open, j.out[u.msg])
		j.out[u.msg], j.errs[u.msg] = out, err
		if err != nil {
			j.failed.Store(true)
		}
		return
	}
	off, text, out := j.piece(u)
	lm.parts[u.piece] = gcmPieceCPU(j.msgs[u.msg].Key, &lm.j0, off, out, text, j.open)
}

// unitLen is the length of unit u's text.
func (j *gcmJob) unitLen(u gcmUnit) int {
	body := bodyLen(&j.msgs[u.msg], j.open, -1)
	if u.piece < 0 {
		return body
	}
	return min(j.e.batchBytes, body-u.piece*j.e.batchBytes)
}

// unitText is the input and output of unit u and the offset of its first
// byte in its message (for a whole message, held: its result slot is set
// here).
func (j *gcmJob) unitText(u gcmUnit) (off int, text, out []byte) {
	if u.piece >= 0 {
		return j.piece(u)
	}
	m := &j.msgs[u.msg]
	body := bodyLen(m, j.open, -1)
	return 0, m.Data[:body], j.resultSlot(u.msg)[:body]
}

// cutUnit is a unit that cpuCut computes in pieces: where its text is, its
// counter block, the slots of its pieces' GHASH values, and for Seal
// crypto/cipher's GCM with 16-byte nonces and H⁻² (sealPieceCPU; nil where
// crypto/cipher has none: gcmPieceCPU).
type cutUnit struct {
	unit        gcmUnit
	off         int
	text, out   []byte
	j0          [16]byte
	first, many int // slots
	seal        cipher.AEAD
	inverse2    fieldElement
}

// cpuTask is one task of cpuCut: unit k computed whole (cut < 0), or the
// bytes [from, to) of cut unit cut.
type cpuTask struct {
	k        int
	cut      int
	from, to int
}

// cpuCut computes the units [lo, hi): those longer than a core's share of
// the call in pieces (of the call's bytes over four per core, within
// cpuPieceLeast and cpuPieceMost), each on whichever core is free, then
// their GHASH values chained; the others whole.
func (j *gcmJob) cpuCut(lo, hi int) {
	cores := runtime.GOMAXPROCS(0)
	total := 0
	for k := lo; k < hi; k++ {
		total += j.unitLen(j.unit(k))
	}
	share := total / cores
	size := min(max(total/(4*cores), cpuPieceLeast), cpuPieceMost) &^ (BlockSize - 1)
	var tasks []cpuTask
	var cuts []cutUnit
	slots := 0
	for k := lo; k < hi; k++ {
		u := j.unit(k)
		if lm := j.large[u.msg]; u.piece == 0 && k+len(lm.parts) <= hi && bodyLen(&j.msgs[u.msg], j.open, -1) <= share {
			// a large message whole in the range and no more than a
			// core's share: crypto/cipher's one call (one pass over it)
			lm.whole = true
			tasks = append(tasks, cpuTask{k: k, cut: -1})
			k += len(lm.parts) - 1
			continue
		}
		// a piece is cut whatever its length (to open, its GHASH and its
		// counter mode are two passes: over a piece that stays in the
		// cache), a whole message when it is more than a core's share
		if n := j.unitLen(u); n < 2*cpuPieceLeast || (u.piece < 0 && n <= share) {
			tasks = append(tasks, cpuTask{k: k, cut: -1})
			continue
		}
		if u.piece < 0 && !j.cpuHold(k, u) {
			continue
		}
		off, text, out := j.unitText(u)
		c := cutUnit{unit: u, off: off, text: text, out: out, first: slots, many: (len(text) + size - 1) / size}
		m := &j.msgs[u.msg]
		if lm := j.large[u.msg]; lm != nil {
			c.j0 = lm.j0
		} else {
			c.j0 = counterBlock(m.Key.hashPowers[0], m.Nonce)
		}
		if !j.open {
			if g, err := cipher.NewGCMWithNonceSize(m.Key.block, pieceNonceSize); err == nil {
				c.seal, c.inverse2 = g, m.Key.heldInverse2()
			}
		}
		for p := range c.many {
			tasks = append(tasks, cpuTask{cut: len(cuts), from: p * size, to: min(len(text), (p+1)*size)})
		}
		slots += c.many
		cuts = append(cuts, c)
	}
	values := make([]fieldElement, slots)
	defer clear(values)
	batch.Parallel(len(tasks), 1, func(a, b int) {
		for _, t := range tasks[a:b] {
			if t.cut < 0 {
				j.cpuUnit(t.k, j.unit(t.k))
				continue
			}
			c := &cuts[t.cut]
			p := t.from / size
			k, at, dst, src := j.msgs[c.unit.msg].Key, c.off+t.from, c.out[t.from:t.to], c.text[t.from:t.to]
			if c.seal != nil {
				values[c.first+p] = sealPieceCPU(k, c.seal, c.inverse2, &c.j0, at, dst, src)
			} else {
				values[c.first+p] = gcmPieceCPU(k, &c.j0, at, dst, src, j.open)
			}
		}
	})
	batch.Parallel(len(cuts), 1, func(a, b int) {
		for i := a; i < b; i++ {
			c := &cuts[i]
			k := j.msgs[c.unit.msg].Key
			w := chainPieces(&k.hashPowers, values[c.first:c.first+c.many], size, len(c.text))
			if c.unit.piece >= 0 {
				j.large[c.unit.msg].parts[c.unit.piece] = w
			} else {
				j.finishTag(c.unit.msg, &c.j0, w)
			}
			clear(c.j0[:])
			c.inverse2 = fieldElement{}
		}
	})
}

// pieceNonceSize is the nonce length of sealPieceCPU's GCM: a nonce of
// that length is hashed into the counter block, so one can be chosen for
// any counter block.
const pieceNonceSize = 16

// sealPieceCPU is gcmPieceCPU for Seal in one pass over the piece:
// crypto/cipher's GCM g (16-byte nonces) seals src (the bytes of the
// message from off, a multiple of 16) into dst (which may be src) under a
// nonce whose counter block J0' is the message's counter block at the
// piece (pieceNonce), so its counter mode is the message's there and its
// tag is (V ⊕ L)·H ⊕ E(K, J0'), with V the piece's GHASH sum and L its
// lengths block: W = V·H is the tag less E(K, J0') and L·H. Seal writes
// the tag after its ciphertext, over the next piece's bytes: so the last
// block (the last 1 to 16 bytes) is sealed apart, its plaintext read
// first, into a block of its own, and the two values chained. k is held;
// inverse2 is its H⁻².
func sealPieceCPU(k *Key, g cipher.AEAD, inverse2 fieldElement, j0 *[16]byte, off int, dst, src []byte) fieldElement {
	n := len(src)
	tail := n - BlockSize*((n-1)/BlockSize) // 1 to 16
	head := n - tail
	// the nonces are secret: with the counter blocks (from the message's
	// nonce) they give H
	nonce := make([]byte, pieceNonceSize)
	var last [BlockSize]byte
	var sealed [BlockSize + TagSize]byte
	defer clear(nonce)
	defer clear(last[:])
	defer clear(sealed[:])
	copy(last[:], src[head:])
	first := uint32(off / BlockSize)
	var w fieldElement
	if head > 0 {
		pieceNonce(k, inverse2, j0, first).bytes(nonce)
		out := g.Seal(dst[:0], nonce, src[:head], nil)
		w = pieceValue(k, j0, first, out[head:head+TagSize], head)
	}
	pieceNonce(k, inverse2, j0, first+uint32(head/BlockSize)).bytes(nonce)
	out := g.Seal(sealed[:0], nonce, last[:tail], nil)
	copy(dst[head:n], out[:tail])
	return w.mul(k.hashPowers[0]).xor(pieceValue(k, j0, first+uint32(head/BlockSize), out[tail:], tail))
}

// counterAtBlock is the counter block J0' whose first counter (J0' + 1,
// inc32) is that of block first of the message of counter block j0.
func counterAtBlock(j0 *[16]byte, first uint32) [16]byte {
	c := *j0
	binary.BigEndian.PutUint32(c[12:], binary.BigEndian.Uint32(j0[12:])+first)
	return c
}

// pieceNonce is the 16-byte nonce N whose counter block is
// counterAtBlock(j0, first): J0' = GHASH(N ‖ L_N) = N·H² ⊕ L_N·H, with
// L_N the lengths block of a 16-byte nonce, so N = (J0' ⊕ L_N·H)·H⁻².
func pieceNonce(k *Key, inverse2 fieldElement, j0 *[16]byte, first uint32) fieldElement {
	c := counterAtBlock(j0, first)
	defer clear(c[:])
	return fieldElementFromBytes(c[:]).xor(fieldElement{0, 8 * pieceNonceSize}.mul(k.hashPowers[0])).mul(inverse2)
}

// pieceValue is W of a piece of n bytes sealed under pieceNonce(…, first)
// with tag: the tag less E(K, J0') and L·H, L the piece's lengths block
// (no additional data).
func pieceValue(k *Key, j0 *[16]byte, first uint32, tag []byte, n int) fieldElement {
	c := counterAtBlock(j0, first)
	var mask [BlockSize]byte
	k.block.Encrypt(mask[:], c[:])
	s := fieldElementFromBytes(tag).xor(fieldElementFromBytes(mask[:]))
	clear(c[:])
	clear(mask[:])
	return s.xor(fieldElement{0, uint64(n) * 8}.mul(k.hashPowers[0]))
}

// chainPieces is the GHASH value W of a text of n bytes from the values of
// its pieces of size bytes (the last one shorter): W ← W·H^(blocks of the
// piece) ⊕ W_piece.
func chainPieces(powers *[hashPowerCount]fieldElement, values []fieldElement, size, n int) fieldElement {
	step := power(powers, uint64(size/BlockSize))
	var w fieldElement
	for p, v := range values {
		h := step
		if last := n - p*size; last < size {
			h = power(powers, uint64((last+BlockSize-1)/BlockSize))
		}
		w = w.mul(h).xor(v)
	}
	return w
}

// gcmOne seals or opens m with crypto/cipher's GCM of its key into dst[:0]
// (which may be m.Data itself: in place); m.Key is held. A message that
// does not open gives ErrOpen and leaves dst zeroed; a failed element's
// result is nil.
func gcmOne(m *Message, open bool, dst []byte) ([]byte, error) {
	aead, err := m.Key.heldGCM(len(m.Nonce))
	if err != nil {
		return nil, err
	}
	if !open {
		return aead.Seal(dst[:0], m.Nonce, m.Data, m.AAD), nil
	}
	out, err := aead.Open(dst[:0], m.Nonce, m.Data, m.AAD)
	if err != nil {
		clear(dst)
		return nil, ErrOpen
	}
	return out, nil
}

// gcmPieceCPU is a piece of a message on the CPU: src, the bytes of the
// message from off (a multiple of 16), encrypted (or decrypted) into dst
// (which may be src) in GCM's counter mode from the counter block j0
// (gcmCounter). It returns the piece's GHASH value W of its ciphertext
// (ghashW), hashed before it is overwritten, to open. k is held.
func gcmPieceCPU(k *Key, j0 *[16]byte, off int, dst, src []byte, open bool) fieldElement {
	var w fieldElement
	if open {
		w = ghashW(k, src)
	}
	gcmCounter(k.block, j0, uint32(off/BlockSize), dst[:len(src)], src)
	if !open {
		w = ghashW(k, dst[:len(src)])
	}
	return w
}

// gcmCounter is GCM's counter mode over src into dst, from block first of
// the message: the counter, the last 32 bits of the counter block, starts
// at J0's plus 1 + first and wraps modulo 2³² (SP 800-38D's inc32).
// crypto/cipher's CTR increments the whole block, so the text is cut where
// the counter wraps.
func gcmCounter(block cipher.Block, j0 *[16]byte, first uint32, dst, src []byte) {
	ctr := *j0
	defer clear(ctr[:])
	counter := binary.BigEndian.Uint32(j0[12:]) + 1 + first
	for len(src) > 0 {
		binary.BigEndian.PutUint32(ctr[12:], counter)
		n := len(src)
		if left := (1<<32 - uint64(counter)) * BlockSize; uint64(n) > left {
			n = int(left)
		}
		cipher.NewCTR(block, ctr[:]).XORKeyStream(dst[:n], src[:n])
		dst, src = dst[n:], src[n:]
		counter = 0
	}
}

// ghashW is W = V·H of data under k's hash key H, V = Σ X_i·H^(n−i+1)
// its GHASH sum over its n blocks, the last zero-padded. crypto/cipher's
// GCM of k computes it at the speed of the CPU's carry-less products: the
// tag of data as additional data and no plaintext, under the zero nonce,
// is (V ⊕ L)·H ⊕ E(K, J0), with L the lengths block of data alone and J0
// the zero nonce's counter block (the tag and that nonce stay here). Where
// crypto/cipher has no GCM for k (FIPS 140-only mode), the host's
// constant-time GHASH computes it. k is held.
func ghashW(k *Key, data []byte) fieldElement {
	h := k.hashPowers[0]
	aead, err := k.heldGCM(NonceSize)
	if err != nil {
		return ghash(h, data).mul(h)
	}
	var nonce [NonceSize]byte
	var j0, mask [BlockSize]byte
	j0[BlockSize-1] = 1
	k.block.Encrypt(mask[:], j0[:])
	tag := aead.Seal(make([]byte, 0, TagSize), nonce[:], nil, data)
	for i := range tag {
		tag[i] ^= mask[i]
	}
	s := fieldElementFromBytes(tag)
	clear(tag)
	clear(mask[:])
	return s.xor(fieldElement{uint64(len(data)) * 8, 0}.mul(h))
}

// gcmTag is the tag of a message under k with counter block j0, additional
// data aad, and a ciphertext of body bytes whose GHASH value is w
// (ghashW): S = W_A·H^(blocks of the ciphertext) ⊕ w ⊕ L·H, with W_A the
// value of aad and L the lengths block, and the tag S ⊕ E(K, J0). k is
// held.
func gcmTag(k *Key, j0 *[16]byte, aad []byte, w fieldElement, body int) (tag [TagSize]byte) {
	h := k.hashPowers[0]
	s := ghashW(k, aad)
	if body > 0 {
		s = s.mul(power(&k.hashPowers, uint64((body+BlockSize-1)/BlockSize)))
	}
	s = s.xor(w).xor(fieldElement{uint64(len(aad)) * 8, uint64(body) * 8}.mul(h))
	var mask [BlockSize]byte
	k.block.Encrypt(mask[:], j0[:])
	s.bytes(tag[:])
	for i := range tag {
		tag[i] ^= mask[i]
	}
	clear(mask[:])
	return tag
}
