package aes

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/gpucrypto/gpucrypto/batch"
)

const (
	// TagSize is the length of a GCM tag: the full 16 bytes.
	TagSize = 16
	// NonceSize is the standard GCM nonce length, the fastest (other
	// lengths are hashed into the counter block on the host).
	NonceSize = 12
	// MaxMessage is the longest GCM plaintext (SP 800-38D: 2³² − 2 blocks).
	MaxMessage = (1<<32 - 2) * BlockSize
)

// Message is one element of a GCM batch.
type Message struct {
	Key   *Key
	Nonce []byte // at least one byte; NonceSize is the standard
	AAD   []byte // additional authenticated data, possibly empty
	// Data is the plaintext for Seal, the ciphertext followed by its
	// 16-byte tag for Open.
	Data []byte
	// Out, when its capacity holds the result, receives it (the result
	// is then Out[:n]); otherwise the result is newly allocated. Out may
	// be Data itself (in place) but must not overlap it otherwise.
	Out []byte
}

// Seal encrypts and authenticates each message (AES-GCM). The result of
// element i is its ciphertext followed by the tag, or nil with a reason in
// a *batch.Error when the element is invalid (no key, empty nonce, ...).
//
// The device computes the messages in batches of up to Config.StageBytes,
// and a message larger than that in pieces of that size; a batch's
// results, or a piece's, are written only once complete. When the device
// fails in the middle of a call, the messages it finished keep its
// results, a large message's unfinished chunks are finished on the CPU,
// and the other messages (their Data untouched, in place too) are
// computed on the CPU; the failure is reported through OnFallback. The
// same holds for Open, whose failed elements get no plaintext, only their
// error. On the CPU the messages are spread over all cores, and a long
// message is cut into pieces computed on all cores.
//
// The call checks each element's key when it first needs it and holds it
// from then on (Key.Close waits): a message larger than a batch from the
// start of the call, the messages of the device's part from before its
// first batch, until the call returns, and a message computed on the CPU
// while it is computed. A key closed during the call therefore still
// computes every element that found it live, so no element fails
// half-way, in place or not; an element whose key was closed before the
// call checked it fails with ErrKeyDestroyed and its Data and Out are not
// written.
func (e *Engine) Seal(msgs []Message) ([][]byte, error) { return e.gcm(msgs, false) }

// Open checks and decrypts each message. The result of element i is its
// plaintext, or nil with a reason in a *batch.Error: ErrOpen when the tag
// does not match (no plaintext is released: Out[:n] is zeroed). A device
// failure in the middle of the call is handled as for Seal.
func (e *Engine) Open(msgs []Message) ([][]byte, error) { return e.gcm(msgs, true) }

// gcmGroupLog is log2 of the values one gcm_reduce work-item combines.
const gcmGroupLog = 4

// gcmPlan is a GCM batch laid out for the kernels (kernels/aes.cl).
type gcmPlan struct {
	open     bool
	index    []int // element of each planned message
	keys     []*Key
	keyWords int      // words per key record
	messages []uint32 // 16 words per message
	segments []uint32 // the message of each segment ({0} for one message: the kernel reads no map)
	nsegs    int
	levels   [][]uint32 // gcm_reduce units of level 1, 2, ...
	// single: for a plan of one message, the levels as ranges
	// (gcm_reduce_one makes the units itself) instead of levels.
	single   []reduction
	values   int // field elements of all levels
	dataSize int
	aadSize  int
	dataOff  []int
	aadOff   []int
}

func align16(n int) int { return (n + 15) &^ 15 }

// reduction is one reduction level of a single message: count values from
// index in combine into ⌈count/16⌉ values from index out.
type reduction struct{ in, count, out int }

// levelCount is the number of reduction levels of p.
func (p *gcmPlan) levelCount() int { return len(p.levels) + len(p.single) }

// messageRange is a range of a plan's messages and what it lays out.
type messageRange struct {
	lo, hi          int
	data, aad, segs int
	keys            []*Key
}

// splitRanges cuts [0, n) into ranges of at least least messages, about
// four per core.
func splitRanges(n, least int) []messageRange {
	w := max(1, min(4*runtime.GOMAXPROCS(0), n/max(least, 1)))
	out := make([]messageRange, w)
	for k := range w {
		out[k] = messageRange{lo: k * n / w, hi: (k + 1) * n / w}
	}
	return out
}

// bodyLen is the length of m's plaintext or ciphertext without the tag
// (device ≥ 0: a device-resident message of that length).
func bodyLen(m *Message, open bool, device int) int {
	if device >= 0 {
		return device
	}
	if open {
		return len(m.Data) - TagSize
	}
	return len(m.Data)
}

// checkMessage validates element m; when it is valid, it holds m.Key
// (Key.acquire) for the caller to release.
func checkMessage(m *Message, open bool, device int) error {
	if err := m.Key.live(); err != nil {
		return err
	}
	if err := checkFields(m, open, device); err != nil {
		return err
	}
	return m.Key.acquire()
}

// checkFields validates element m but for its key's state (only that it
// has one): its nonce, lengths and buffers.
func checkFields(m *Message, open bool, device int) error {
	if m.Key == nil {
		return ErrNilKey
	}
	if len(m.Nonce) == 0 {
		return errors.New("aes: GCM nonce of 0 bytes")
	}
	if device < 0 && open && len(m.Data) < TagSize {
		return fmt.Errorf("aes: GCM ciphertext of %d bytes is shorter than the tag", len(m.Data))
	}
	if device < 0 && cap(m.Out) > 0 && inexactOverlap(m.Out[:cap(m.Out)], m.Data) {
		return ErrOverlap
	}
	if n := bodyLen(m, open, device); uint64(n) > MaxMessage {
		return fmt.Errorf("aes: GCM message of %d bytes: at most %d", n, uint64(MaxMessage))
	}
	return nil
}

// plan lays out the (valid) elements idx of msgs; deviceLen ≥ 0 is the
// length of the one message of a device-resident call (−1: the messages'
// Data). Counter blocks and the segment map are computed on all cores.
func (e *Engine) plan(msgs []Message, idx []int, open bool, deviceLen int) *gcmPlan {
	return e.planGHASH(msgs, idx, open, deviceLen, 1)
}

// planGHASH is plan; lengths is 1 when each message's GHASH input ends
// with the lengths block, 0 for a part of a message (gcmLarge).
func (e *Engine) planGHASH(msgs []Message, idx []int, open bool, deviceLen, lengths int) *gcmPlan {
	p := &gcmPlan{open: open, index: idx}
	seg := 1 << e.segLog
	// Offsets, segments and key records, on all cores: each range of
	// messages lays itself out from zero and collects its own keys (a key
	// used in two ranges gets two records); the ranges' totals then place
	// them.
	n := len(p.index)
	p.messages = make([]uint32, 16*n)
	p.dataOff = make([]int, n)
	p.aadOff = make([]int, n)
	counts := make([]int, n)
	type rangeTotals struct{ data, aad, segs, nkeys int }
	ranges := splitRanges(n, 2048)
	batch.Parallel(len(ranges), 1, func(rlo, rhi int) {
		for r := rlo; r < rhi; r++ {
			t := &ranges[r]
			keyIndex := map[*Key]uint32{}
			var last *Key
			var lastIndex uint32
			for mi := t.lo; mi < t.hi; mi++ {
				m := &msgs[p.index[mi]]
				if m.Key != last {
					ki, ok := keyIndex[m.Key]
					if !ok {
						ki = uint32(len(t.keys))
						keyIndex[m.Key] = ki
						t.keys = append(t.keys, m.Key)
					}
					last, lastIndex = m.Key, ki
				}
				body := bodyLen(m, open, deviceLen)
				blocks := (len(m.AAD)+15)/16 + (body+15)/16 + lengths
				counts[mi] = (blocks + seg - 1) / seg
				d := p.messages[16*mi:]
				d[0], d[1], d[2], d[3], d[4] = lastIndex, uint32(t.data), uint32(body), uint32(t.aad), uint32(len(m.AAD))
				d[5], d[6], d[7] = uint32(t.segs), uint32(counts[mi]), uint32(blocks)
				t.data += align16(body)
				t.aad += align16(len(m.AAD))
				t.segs += counts[mi]
			}
		}
	})
	bases := make([]rangeTotals, len(ranges))
	for r := range ranges {
		t := &ranges[r]
		bases[r] = rangeTotals{data: p.dataSize, aad: p.aadSize, segs: p.nsegs, nkeys: len(p.keys)}
		p.dataSize += t.data
		p.aadSize += t.aad
		p.nsegs += t.segs
		p.keys = append(p.keys, t.keys...)
	}
	batch.Parallel(len(ranges), 1, func(rlo, rhi int) {
		for r := rlo; r < rhi; r++ {
			b := bases[r]
			for mi := ranges[r].lo; mi < ranges[r].hi; mi++ {
				d := p.messages[16*mi:]
				d[0] += uint32(b.nkeys)
				d[1] += uint32(b.data)
				d[3] += uint32(b.aad)
				d[5] += uint32(b.segs)
				p.dataOff[mi], p.aadOff[mi] = int(d[1]), int(d[3])
			}
		}
	})
	p.segments = []uint32{0} // one message: the kernel reads no map
	if n > 1 {
		p.segments = make([]uint32, p.nsegs)
	}
	batch.Parallel(n, 1024, func(lo, hi int) {
		for mi := lo; mi < hi; mi++ {
			m := &msgs[p.index[mi]]
			j0 := counterBlock(m.Key.hashPowers[0], m.Nonce)
			d := p.messages[16*mi:]
			for w := range 4 {
				d[8+w] = binary.LittleEndian.Uint32(j0[4*w:])
			}
			if n > 1 {
				first := int(d[5])
				for s := first; s < first+counts[mi]; s++ {
					p.segments[s] = uint32(mi)
				}
			}
		}
	})
	// Reduction levels: each combines up to 16 values of the level below,
	// for the messages that still have more than one.
	p.values = p.nsegs
	const group = 1 << gcmGroupLog
	type level struct{ first, count int }
	cur := make([]level, n)
	for mi := range n {
		cur[mi] = level{int(p.messages[16*mi+5]), counts[mi]}
	}
	for n == 1 && cur[0].count > 1 {
		nu := (cur[0].count + group - 1) / group
		p.single = append(p.single, reduction{cur[0].first, cur[0].count, p.values})
		cur[0] = level{p.values, nu}
		p.values += nu
	}
	for {
		total := 0
		for _, c := range cur {
			if c.count > 1 {
				total += (c.count + group - 1) / group
			}
		}
		if total == 0 {
			break
		}
		units := make([]uint32, 4*total)
		at := 0
		for mi := range cur {
			c := &cur[mi]
			if c.count == 1 {
				continue
			}
			nu := (c.count + group - 1) / group
			in, first := c.first, p.values
			key := p.messages[16*mi]
			for j := range nu {
				k := group
				if j == 0 {
					k = c.count - (nu-1)*group
				}
				u := units[at : at+4 : at+4]
				u[0], u[1], u[2], u[3] = uint32(in), uint32(k), key, uint32(p.values)
				at += 4
				in += k
				p.values++
			}
			*c = level{first, nu}
		}
		p.levels = append(p.levels, units)
	}
	for mi := range cur {
		p.messages[16*mi+12] = uint32(cur[mi].first)
	}
	p.keyWords = keyRecordLevels + 4*p.levelCount()
	return p
}

// keyRecords are the key records of the plan's keys, which the call holds
// (validate): their schedules and powers are read without the lock.
func (e *Engine) keyRecords(p *gcmPlan, out []uint32) []uint32 {
	if out == nil {
		out = make([]uint32, len(p.keys)*p.keyWords)
	}
	clear(out)
	batch.Parallel(len(p.keys), 1024, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			k := p.keys[i]
			r := out[i*p.keyWords:]
			copy(r, k.enc[:4*k.rounds+4])
			r[keyRecordRounds] = uint32(k.rounds)
			put := func(at int, x fieldElement) {
				w := x.words()
				copy(r[at:], w[:])
			}
			for i, x := range k.hashSmall {
				put(keyRecordHash+4*i, x)
			}
			for l := 1; l <= p.levelCount(); l++ {
				put(keyRecordLevels+4*(l-1), k.hashPowers[int(e.segLog)+gcmGroupLog*(l-1)])
			}
		}
	})
	return out
}

// words views b (4-byte aligned) as little-endian words.
func words(b []byte) []uint32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), len(b)/4)
}
