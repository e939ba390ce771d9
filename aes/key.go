package aes

import (
	stdaes "crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"
)

// MaxRounds is the number of rounds of AES-256, the largest schedule.
const maxRounds = 14

// scheduleWords is the size of one expanded schedule in words (AES-256).
const scheduleWords = 4 * (maxRounds + 1)

// KeySizeError is returned for a key that is not 16, 24 or 32 bytes long.
type KeySizeError int

func (k KeySizeError) Error() string {
	return fmt.Sprintf("aes: invalid key size %d (want 16, 24 or 32 bytes)", int(k))
}

// Key is an AES key with everything the kernels and the CPU path need,
// computed once: the encryption schedule, the decryption schedule of the
// equivalent inverse cipher, the GHASH key H = E(K, 0¹²⁸) and its powers
// H^(2^i), a crypto/aes cipher, and crypto/cipher's GCM of it (12-byte
// nonces, made on the first CPU call that needs it), so that no CPU call
// expands the key again.
//
// A Key is safe for concurrent use. Close zeroes its schedules and
// powers and drops its crypto/aes and crypto/cipher values when the key
// is no longer needed; the Go runtime may still hold copies made while it
// lived (crypto/aes's own schedule and crypto/cipher's GHASH table among
// them), which Close cannot reach. The device has no copy of a Key
// between calls: each call uploads the round keys it needs into device
// buffers that are zeroed after it.
//
// Every Engine call holds the keys it computes with, from the point it
// checks them until it returns (acquire, release), or reads them in a pass
// of keyReaders (the CPU path of Seal and Open): Close waits for those
// calls and passes, so a call that found its key live computes every
// element with it, on the device or the CPU, and never sees a schedule
// half zeroed.
type Key struct {
	// What every call reads first, in one cache line: a batch of many
	// keys reads each key's line once per pass over the batch.
	//
	// users counts the calls holding the key; closed is set by Close
	// before it waits for the passes of keyReaders and for users to reach
	// zero (on idle, whose L is mu), so that no call acquires the key
	// afterwards and no pass reads it as open. The schedules, the powers,
	// block and standard change only under mu with closed set, no pass
	// that may have read it open and no users; the calls that hold the
	// key, and the passes that found it open, read them without the lock.
	users  atomic.Int64
	closed atomic.Bool
	block  cipher.Block
	// standard is crypto/cipher's GCM of block with 12-byte nonces (or
	// standardErr where crypto/cipher refuses one), made once by the
	// first holder that asks (heldGCM).
	standard     cipher.AEAD
	standardOnce sync.Once
	// gcm is standard once made, published for the calls that need
	// nothing else of the key (a Server's CPU path): they load it and
	// closed, and write nothing shared (acquire's users would be a cache
	// line that every core's request writes twice). Close clears it.
	gcm atomic.Pointer[cipher.AEAD]

	size   int // bytes: 16, 24 or 32
	rounds int
	// enc and dec are little-endian column words (tables.go): enc[4r+c]
	// is column c of round key r; dec is the schedule of the equivalent
	// inverse cipher (FIPS-197 §5.3.5), in the order decryption uses it.
	enc, dec [scheduleWords]uint32
	// hashPowers[i] is H^(2^i) in GCM's field (ghash.go); hashSmall[i]
	// is H^(i+1), the powers gcm_segments aggregates up to four blocks with.
	hashPowers [hashPowerCount]fieldElement
	hashSmall  [4]fieldElement
	// hashInverse2 is H⁻², made once by the first holder that asks
	// (heldInverse2): the CPU's pieces of a long Seal need it.
	inverseOnce  sync.Once
	hashInverse2 fieldElement

	standardErr error
	mu          sync.Mutex
	idle        sync.Cond
}

// NewKey expands key (16, 24 or 32 bytes: AES-128, -192, -256).
func NewKey(key []byte) (*Key, error) {
	switch len(key) {
	case 16, 24, 32:
	default:
		return nil, KeySizeError(len(key))
	}
	block, err := stdaes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	k := &Key{size: len(key), rounds: len(key)/4 + 6, block: block}
	k.idle.L = &k.mu
	expandKey(key, k.rounds, &k.enc, &k.dec)
	var zero, h [16]byte
	block.Encrypt(h[:], zero[:])
	k.hashPowers[0] = fieldElementFromBytes(h[:])
	for i := 1; i < hashPowerCount; i++ {
		k.hashPowers[i] = k.hashPowers[i-1].mul(k.hashPowers[i-1])
	}
	k.hashSmall[0] = k.hashPowers[0]
	for i := 1; i < 4; i++ {
		k.hashSmall[i] = k.hashSmall[i-1].mul(k.hashPowers[0])
	}
	clear(h[:])
	return k, nil
}

// Size is the key's length in bytes (16, 24 or 32).
func (k *Key) Size() int { return k.size }

// Rounds is the number of AES rounds (10, 12 or 14).
func (k *Key) Rounds() int { return k.rounds }

// Close zeroes the key's schedules and GHASH powers and drops its
// crypto/aes cipher and crypto/cipher GCM. Calls that start afterwards
// fail with ErrKeyDestroyed (for the elements that use k). Close first
// waits for the Engine calls already using k to return: they compute with
// the key as it was, so none gives a result computed with a zeroed
// schedule or fails half-way because of Close. It must therefore not be
// called from a function the engine calls during a call that uses k
// (OnFallback): it would wait for itself. Calling it again does nothing;
// the error is always nil.
func (k *Key) Close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed.Load() {
		return nil // closed before (only Close sets it, under mu)
	}
	k.closed.Store(true)
	k.gcm.Store(nil)
	readers.wait()
	for k.users.Load() > 0 {
		k.idle.Wait()
	}
	clear(k.enc[:])
	clear(k.dec[:])
	clear(k.hashPowers[:])
	clear(k.hashSmall[:])
	k.hashInverse2 = fieldElement{}
	k.block = nil
	k.standard, k.standardErr = nil, ErrKeyDestroyed
	return nil
}

// Destroy is Close.
//
// Deprecated: use Close.
func (k *Key) Destroy() { k.Close() }

// live reports whether k may be used. It holds nothing: a call that reads
// k's schedules or powers acquires it instead.
func (k *Key) live() error {
	if k == nil {
		return ErrNilKey
	}
	if k.closed.Load() {
		return ErrKeyDestroyed
	}
	return nil
}

// acquire holds k for a call: until the matching release, Close waits
// and k's schedules, powers and crypto/aes and crypto/cipher values stay
// as they are, to be read without the lock. It fails (holding nothing)
// for a nil key and one that Close has begun on.
func (k *Key) acquire() error {
	if k == nil {
		return ErrNilKey
	}
	// users before closed, Close the other way round (both sequentially
	// consistent): either this sees closed or Close sees the use and
	// waits for it.
	k.users.Add(1)
	if k.closed.Load() {
		k.release()
		return ErrKeyDestroyed
	}
	return nil
}

// release ends a hold of acquire, waking a Close waiting for the last.
func (k *Key) release() {
	if k.users.Add(-1) == 0 && k.closed.Load() {
		k.mu.Lock()
		k.idle.Broadcast()
		k.mu.Unlock()
	}
}

// cipherBlock is the crypto/aes cipher of k, which the caller holds
// (acquire).
func (k *Key) cipherBlock() cipher.Block { return k.block }

// heldGCM is crypto/cipher's GCM of k for nonces of nonceSize bytes, k
// held by the caller: the key's own for 12-byte nonces, made once, a new
// one for other lengths (rare: they are hashed into the counter block).
func (k *Key) heldGCM(nonceSize int) (cipher.AEAD, error) {
	if nonceSize != NonceSize {
		return cipher.NewGCMWithNonceSize(k.block, nonceSize)
	}
	k.standardOnce.Do(func() {
		if k.standardErr == nil { // not closed before the first use
			k.standard, k.standardErr = cipher.NewGCM(k.block)
			if k.standard != nil {
				g := k.standard
				k.gcm.Store(&g)
			}
		}
	})
	if k.standard == nil {
		return nil, k.standardErr
	}
	return k.standard, nil
}

// heldInverse2 is H⁻² of k, which the caller holds: H⁻¹ = H^(2¹²⁸−2)
// (GCM's field has 2¹²⁸ − 1 nonzero elements), by a fixed chain of
// squarings and products, so in constant time; made once per key.
func (k *Key) heldInverse2() fieldElement {
	k.inverseOnce.Do(func() {
		h := k.hashPowers[0]
		inv := h
		for range 126 {
			inv = inv.mul(inv).mul(h)
		}
		inv = inv.mul(inv) // H^(2¹²⁸−2)
		k.hashInverse2 = inv.mul(inv)
	})
	return k.hashInverse2
}

// standardGCM is crypto/cipher's GCM of k with 12-byte nonces, made once
// per key: ErrNilKey for a nil key, ErrKeyDestroyed after Close.
func (k *Key) standardGCM() (cipher.AEAD, error) {
	if k == nil {
		return nil, ErrNilKey
	}
	if g := k.gcm.Load(); g != nil {
		if k.closed.Load() {
			return nil, ErrKeyDestroyed
		}
		return *g, nil
	}
	if err := k.acquire(); err != nil {
		return nil, err
	}
	defer k.release()
	return k.heldGCM(NonceSize)
}

// expandKey computes the AES key expansion (FIPS-197 §5.2) into enc and the
// decryption schedule of the equivalent inverse cipher into dec, both as
// little-endian column words. It is constant-time: its branches and loop
// bounds depend on the key's length alone, and it reads no table with an
// index made from the key (subWord computes the S-box, invMixColumn
// multiplies with shifts and masks).
func expandKey(key []byte, rounds int, enc, dec *[scheduleWords]uint32) {
	nk := len(key) / 4
	n := 4 * (rounds + 1)
	for i := 0; i < nk; i++ {
		enc[i] = binary.LittleEndian.Uint32(key[4*i:])
	}
	rcon := uint32(1)
	for i := nk; i < n; i++ {
		w := enc[i-1]
		if i%nk == 0 {
			w = subWord(rotl32(w, 24)) ^ rcon
			rcon = xtimeWord(rcon)
		} else if nk > 6 && i%nk == 4 {
			w = subWord(w)
		}
		enc[i] = enc[i-nk] ^ w
	}
	// Equivalent inverse cipher: round keys in reverse order, InvMixColumns
	// applied to all but the first and the last.
	for r := 0; r <= rounds; r++ {
		for c := 0; c < 4; c++ {
			w := enc[4*(rounds-r)+c]
			if r > 0 && r < rounds {
				w = invMixColumn(w)
			}
			dec[4*r+c] = w
		}
	}
}

// The key schedule's arithmetic works on the four bytes of a word at once,
// each byte an element of GF(2⁸) mod x⁸+x⁴+x³+x+1, with shifts, masks and
// XORs only.

// xtimeWord multiplies each byte of w by x: a shift left by one, and 0x1b
// added to the bytes whose top bit left (a mask made of that bit, not a
// branch).
func xtimeWord(w uint32) uint32 {
	high := w >> 7 & 0x01010101
	return (w&0x7f7f7f7f)<<1 ^ high*0x1b
}

// mulWord multiplies each byte of a by the byte of b in the same place:
// for each bit of b, a mask of it selects a·x^i.
func mulWord(a, b uint32) uint32 {
	var p uint32
	for range 8 {
		p ^= a & ((b & 0x01010101) * 0xff)
		b >>= 1
		a = xtimeWord(a)
	}
	return p
}

// subWord applies the S-box to each byte of w (FIPS-197 §5.1.1): the
// inverse x²⁵⁴ (0 for 0) by a fixed chain of products, then the affine
// map. In little-endian column words RotWord (FIPS-197) is a rotation
// right by 8 bits, rotl32(w, 24).
func subWord(w uint32) uint32 {
	x2 := mulWord(w, w)
	x3 := mulWord(x2, w)
	x6 := mulWord(x3, x3)
	x12 := mulWord(x6, x6)
	x15 := mulWord(x12, x3)
	x30 := mulWord(x15, x15)
	x60 := mulWord(x30, x30)
	x120 := mulWord(x60, x60)
	x240 := mulWord(x120, x120)
	x252 := mulWord(x240, x12)
	inv := mulWord(x252, x2)
	return inv ^ rotl8Word(inv, 1) ^ rotl8Word(inv, 2) ^ rotl8Word(inv, 3) ^ rotl8Word(inv, 4) ^ 0x63636363
}

// rotl8Word rotates each byte of w left by n bits (0 < n < 8).
func rotl8Word(w uint32, n uint) uint32 {
	low := uint32(0xff>>n) * 0x01010101 // the bits of each byte that stay in it
	return (w&low)<<n | (w&^low)>>(8-n)
}

// invMixColumn is InvMixColumns (FIPS-197 §5.3.3) of one column: byte r of
// the result is 14·b[r] ⊕ 11·b[r+1] ⊕ 13·b[r+2] ⊕ 9·b[r+3] (indices mod 4),
// from the multiples by 2, 4 and 8 of all four bytes at once; rotating a
// little-endian word right by 8 bits brings byte r+1 to byte r.
func invMixColumn(w uint32) uint32 {
	x2 := xtimeWord(w)
	x4 := xtimeWord(x2)
	x8 := xtimeWord(x4)
	nine := x8 ^ w
	return x8 ^ x4 ^ x2 ^ rotl32(nine^x2, 24) ^ rotl32(nine^x4, 16) ^ rotl32(nine, 8)
}
