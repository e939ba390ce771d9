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
// H^(2^i), and a crypto/aes cipher for work done on the CPU.
//
// A Key is safe for concurrent use. Destroy zeroes its schedules when the
// key is no longer needed; the Go runtime may still hold copies made
// while it lived (crypto/aes's own schedule among them), which Destroy
// cannot reach.
//
// Every Engine call holds the keys it computes with, from the point it
// checks them until it returns (acquire, release): Destroy waits for those
// calls, so a call that found its key live computes every element with
// it, on the device or the CPU, and never sees a schedule half zeroed.
type Key struct {
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

	// users counts the calls holding the key; destroyed is set by
	// Destroy before it waits for users to reach zero (on idle, whose L
	// is mu), so that no call acquires the key afterwards. The schedules,
	// the powers and block change only under mu with destroyed set and no
	// users.
	users     atomic.Int64
	destroyed atomic.Bool
	mu        sync.Mutex
	idle      sync.Cond
	block     cipher.Block
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

// Destroy zeroes the key's schedules and GHASH powers. Calls that start
// afterwards fail with ErrKeyDestroyed (for the elements that use k).
// Destroy first waits for the Engine calls already using k to return:
// they compute with the key as it was, so none gives a result computed
// with a zeroed schedule or fails half-way because of Destroy. It must
// therefore not be called from a function the engine calls during a call
// that uses k (OnFallback): it would wait for itself.
func (k *Key) Destroy() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.destroyed.Store(true)
	for k.users.Load() > 0 {
		k.idle.Wait()
	}
	clear(k.enc[:])
	clear(k.dec[:])
	clear(k.hashPowers[:])
	clear(k.hashSmall[:])
	k.block = nil
}

// live reports whether k may be used. It holds nothing: a call that reads
// k's schedules or powers acquires it instead.
func (k *Key) live() error {
	if k == nil {
		return ErrNilKey
	}
	if k.destroyed.Load() {
		return ErrKeyDestroyed
	}
	return nil
}

// acquire holds k for a call: until the matching release, Destroy waits
// and k's schedules, powers and crypto/aes cipher stay as they are, to be
// read without the lock. It fails (holding nothing) for a nil key and one
// that Destroy has begun on.
func (k *Key) acquire() error {
	if k == nil {
		return ErrNilKey
	}
	// users before destroyed, Destroy the other way round (both
	// sequentially consistent): either this sees destroyed or Destroy
	// sees the use and waits for it.
	k.users.Add(1)
	if k.destroyed.Load() {
		k.release()
		return ErrKeyDestroyed
	}
	return nil
}

// release ends a hold of acquire, waking a Destroy waiting for the last.
func (k *Key) release() {
	if k.users.Add(-1) == 0 && k.destroyed.Load() {
		k.mu.Lock()
		k.idle.Broadcast()
		k.mu.Unlock()
	}
}

// cipherBlock is the crypto/aes cipher of k (nil after Destroy).
func (k *Key) cipherBlock() cipher.Block {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.block
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
