package aes

import (
	"crypto/cipher"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/gpucrypto/gpucrypto/batch"
)

// MaxXTSDataUnit is the longest XTS data unit: 2²⁰ blocks (IEEE 1619-2007
// §5.1, SP 800-38E).
const MaxXTSDataUnit = 1 << 24

// XTSKeySizeError is returned for an XTS key that is not 32, 48 or 64
// bytes long.
type XTSKeySizeError int

func (k XTSKeySizeError) Error() string {
	return fmt.Sprintf("aes: invalid XTS key size %d (want 32, 48 or 64 bytes)", int(k))
}

// XTSKey is an XTS-AES key: two AES keys of the same size, key1 for the
// data and key2 for the tweak. It is safe for concurrent use; Close zeroes
// it.
type XTSKey struct {
	data, tweak *Key
}

// NewXTSKey splits key into key1 (the first half, for the data) and key2
// (the second half, for the tweak): 32 bytes for XTS-AES-128, 64 for
// XTS-AES-256 (IEEE 1619-2007), and 48 (two AES-192 keys) as
// golang.org/x/crypto/xts also accepts them. As that package does, it
// does not reject a key whose halves are equal; FIPS 140 requires callers
// that must comply to check key1 ≠ key2 themselves.
func NewXTSKey(key []byte) (*XTSKey, error) {
	switch len(key) {
	case 32, 48, 64:
	default:
		return nil, XTSKeySizeError(len(key))
	}
	h := len(key) / 2
	k1, err := NewKey(key[:h])
	if err != nil {
		return nil, err
	}
	k2, err := NewKey(key[h:])
	if err != nil {
		k1.Close()
		return nil, err
	}
	return &XTSKey{data: k1, tweak: k2}, nil
}

// Size is the key's length in bytes (32, 48 or 64).
func (k *XTSKey) Size() int { return 2 * k.data.Size() }

// Close closes both keys (see Key.Close: it waits for the calls using
// them, then zeroes their schedules). Later use of k returns
// ErrKeyDestroyed. Calling it again does nothing; the error is always
// nil.
func (k *XTSKey) Close() error {
	k.data.Close()
	k.tweak.Close()
	return nil
}

// Destroy is Close.
//
// Deprecated: use Close.
func (k *XTSKey) Destroy() { k.Close() }

func (k *XTSKey) live() error {
	if k == nil {
		return ErrNilKey
	}
	if err := k.data.live(); err != nil {
		return err
	}
	return k.tweak.live()
}

// XTSMessage is one element of an XTS batch: a data unit.
type XTSMessage struct {
	Key   *XTSKey
	Tweak []byte // 16 bytes (the data unit's number, little-endian, for storage)
	Data  []byte // 16 to MaxXTSDataUnit bytes, not necessarily a multiple of 16
	// Out, when its capacity holds the result (len(Data) bytes), receives
	// it (the result is then Out[:len(Data)]); otherwise the result is
	// newly allocated. Out may be Data itself (in place) but must not
	// overlap it otherwise.
	Out []byte
}

// EncryptXTS encrypts each data unit with XTS-AES (IEEE 1619-2007,
// SP 800-38E), with ciphertext stealing when its length is not a multiple
// of 16. The result of element i is its ciphertext (in its Out where
// Out's capacity holds it), or nil with a reason in a *batch.Error when
// the element is invalid: no key (ErrNilKey), a closed key
// (ErrKeyDestroyed), a tweak that is not 16 bytes, data shorter than 16
// bytes or longer than MaxXTSDataUnit, an Out that overlaps Data other
// than in place (ErrOverlap).
//
// On the device each unit is cut into runs of a few blocks, each run one
// work-item, so a single long unit spreads over the device as well as
// many short ones do. A device failure in the middle of the call keeps
// the units the device finished and computes the others on the CPU
// (reported through OnFallback).
func (e *Engine) EncryptXTS(msgs []XTSMessage) ([][]byte, error) { return e.xts(msgs, false) }

// DecryptXTS decrypts each data unit with XTS-AES; see EncryptXTS.
func (e *Engine) DecryptXTS(msgs []XTSMessage) ([][]byte, error) { return e.xts(msgs, true) }

func checkXTS(m *XTSMessage) error {
	if err := m.Key.live(); err != nil {
		return err
	}
	if len(m.Tweak) != BlockSize {
		return fmt.Errorf("aes: XTS tweak of %d bytes, want 16", len(m.Tweak))
	}
	if err := checkXTSLength(len(m.Data)); err != nil {
		return err
	}
	return checkOut(m.Out, m.Data)
}

func checkXTSLength(n int) error {
	if n < BlockSize || n > MaxXTSDataUnit {
		return fmt.Errorf("aes: XTS data unit of %d bytes: want 16 to %d", n, MaxXTSDataUnit)
	}
	return nil
}

func (e *Engine) xts(msgs []XTSMessage, decrypt bool) ([][]byte, error) {
	kind := modeXTSEncrypt
	if decrypt {
		kind = modeXTSDecrypt
	}
	return e.modeBatch(kind, len(msgs), func(i int) (modeElement, error) {
		m := &msgs[i]
		if err := checkXTS(m); err != nil {
			return modeElement{}, err
		}
		return modeElement{data: m.Data, out: m.Out, key: m.Key.data, tweak: m.Key.tweak, iv: m.Tweak}, nil
	})
}

// EncryptSectors encrypts src into dst with XTS-AES, as data units of
// sectorSize bytes (16 to MaxXTSDataUnit; ciphertext stealing when not a
// multiple of 16) numbered from firstSector.
//
// Sector numbers are uint64 and wrap: unit i (the i-th sectorSize bytes of
// src, from 0) has the sector number firstSector + i modulo 2⁶⁴, so the
// unit after sector 2⁶⁴−1 is sector 0 again. Its tweak is that number as a
// 16-byte little-endian value whose upper 8 bytes are always zero (no
// carry ever reaches them), exactly as golang.org/x/crypto/xts's
// Cipher.Encrypt(dst, src, sectorNum) makes it: unit i equals that call
// with sectorNum = firstSector + uint64(i). For other tweaks (a full
// 128-bit sector number, say) use EncryptXTS, which takes each unit's
// 16-byte tweak as given.
//
// len(src) must be a multiple of sectorSize; dst must be at least as long
// and may be src itself. When the device fails, the sectors it finished
// are kept and the others (their input untouched, in place too) are
// computed on the CPU, as is the rest of the call; the failure is reported
// through OnFallback.
func (e *Engine) EncryptSectors(k *XTSKey, dst, src []byte, sectorSize int, firstSector uint64) error {
	return e.sectors(k, dst, src, sectorSize, firstSector, false)
}

// DecryptSectors decrypts src into dst; see EncryptSectors. Units are
// numbered as there: unit i is sector firstSector + i modulo 2⁶⁴, its
// tweak that number as 16 little-endian bytes, the upper 8 zero.
func (e *Engine) DecryptSectors(k *XTSKey, dst, src []byte, sectorSize int, firstSector uint64) error {
	return e.sectors(k, dst, src, sectorSize, firstSector, true)
}

func (e *Engine) sectors(k *XTSKey, dst, src []byte, sectorSize int, firstSector uint64, decrypt bool) error {
	if k == nil {
		return ErrNilKey
	}
	if err := acquirePair(k.data, k.tweak); err != nil {
		return err
	}
	defer releasePair(k.data, k.tweak)
	if err := checkXTSLength(sectorSize); err != nil {
		return err
	}
	if len(src)%sectorSize != 0 {
		return fmt.Errorf("aes: XTS input of %d bytes is not a whole number of %d-byte sectors", len(src), sectorSize)
	}
	if err := checkBuffers(dst, src); err != nil {
		return err
	}
	if len(src) == 0 {
		return nil
	}
	kind := modeXTSEncrypt
	if decrypt {
		kind = modeXTSDecrypt
	}
	keys := newModeKeys(kind)
	defer keys.clear()
	ki, err := keys.add(k.data, k.tweak)
	if err != nil {
		return err
	}
	var (
		mu    sync.Mutex
		first error
	)
	fail := func(_ *modeJob, err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
	}
	// The jobs of one group of sectors at a time: a disk image's sectors
	// need not all be described at once. A group fills the device's
	// batches several times over.
	sectors := len(src) / sectorSize
	per := min(1<<20, max(1, 4*e.depth*e.modeBatchBytes()/align16(sectorSize)))
	all := make([]modeJob, min(per, sectors))
	for s := 0; s < sectors && first == nil; s += per {
		jobs := all[:min(per, sectors-s)]
		batch.Parallel(len(jobs), 4096, func(a, b int) {
			for i := a; i < b; i++ {
				lo := (s + i) * sectorSize
				jobs[i] = modeJob{elem: s + i, key: ki, src: src[lo : lo+sectorSize], dst: dst[lo : lo+sectorSize]}
				binary.LittleEndian.PutUint64(jobs[i].iv[:], firstSector+uint64(s+i))
			}
		})
		if err := e.runModes(keys, jobs, fail); err != nil {
			return err
		}
	}
	return first
}

// xtsCPU encrypts (or decrypts) one data unit of len(src) ≥ 16 bytes into
// dst (which may be src) with crypto/aes: data is key1's cipher, tweak
// key2's; IEEE 1619-2007 §5.3 and §5.4, with ciphertext stealing. It is
// the CPU path and fallback of the XTS kernels and computes the same.
func xtsCPU(data, tweak cipher.Block, iv *[16]byte, dst, src []byte, decrypt bool) {
	var t [16]byte
	defer clear(t[:])
	tweak.Encrypt(t[:], iv[:])
	full, tail := len(src)/BlockSize, len(src)%BlockSize
	plain := full // blocks before the stealing
	if tail > 0 {
		plain--
	}
	var x [16]byte
	defer clear(x[:])
	lo, hi := binary.LittleEndian.Uint64(t[:8]), binary.LittleEndian.Uint64(t[8:])
	for i := range plain {
		xtsBlockWords(data, lo, hi, &x, dst[16*i:16*i+16], src[16*i:16*i+16], decrypt)
		lo, hi = xtsDoubleWords(lo, hi)
	}
	if tail == 0 {
		return
	}
	// lo, hi is T_{m−1} for the last full block m−1; next is T_m.
	binary.LittleEndian.PutUint64(t[:8], lo)
	binary.LittleEndian.PutUint64(t[8:], hi)
	at := 16 * (full - 1)
	next := t
	defer clear(next[:])
	xtsDouble(&next)
	firstT, secondT := &t, &next
	if decrypt {
		firstT, secondT = &next, &t
	}
	var cc, pp [16]byte
	defer clear(cc[:])
	defer clear(pp[:])
	xtsBlock(data, firstT, cc[:], src[at:at+16], decrypt)
	copy(pp[:], src[at+16:]) // the partial block, read before dst is written
	copy(pp[tail:], cc[tail:])
	copy(dst[at+16:at+16+tail], cc[:tail])
	xtsBlock(data, secondT, dst[at:at+16], pp[:], decrypt)
}

// xtsBlock is dst = E(src ⊕ T) ⊕ T (or with D); dst may be src.
func xtsBlock(b cipher.Block, t *[16]byte, dst, src []byte, decrypt bool) {
	var x [16]byte
	xtsBlockWords(b, binary.LittleEndian.Uint64(t[:8]), binary.LittleEndian.Uint64(t[8:]), &x, dst, src, decrypt)
	clear(x[:])
}

// xtsBlockWords is xtsBlock with T as two little-endian words, through
// the caller's block x.
func xtsBlockWords(b cipher.Block, lo, hi uint64, x *[16]byte, dst, src []byte, decrypt bool) {
	le := binary.LittleEndian
	le.PutUint64(x[:8], le.Uint64(src[:8])^lo)
	le.PutUint64(x[8:], le.Uint64(src[8:16])^hi)
	if decrypt {
		b.Decrypt(x[:], x[:])
	} else {
		b.Encrypt(x[:], x[:])
	}
	le.PutUint64(dst[:8], le.Uint64(x[:8])^lo)
	le.PutUint64(dst[8:16], le.Uint64(x[8:])^hi)
}

// xtsDouble multiplies t by α = x in GF(2^128) mod x¹²⁸ + x⁷ + x² + x + 1,
// little-endian (IEEE 1619) (xtsDoubleWords).
func xtsDouble(t *[16]byte) {
	lo, hi := xtsDoubleWords(binary.LittleEndian.Uint64(t[:8]), binary.LittleEndian.Uint64(t[8:]))
	binary.LittleEndian.PutUint64(t[:8], lo)
	binary.LittleEndian.PutUint64(t[8:], hi)
}

// xtsDoubleWords is xtsDouble on the tweak's two little-endian words: a
// shift left by one bit and, when a bit leaves the top, 0x87 added to the
// low byte, through a mask (no branch on the tweak).
func xtsDoubleWords(lo, hi uint64) (uint64, uint64) {
	carry := hi >> 63
	return lo<<1 ^ (0x87 & -carry), hi<<1 | lo>>63
}
