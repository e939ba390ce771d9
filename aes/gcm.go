package aes

import (
	"crypto/cipher"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
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
// The device computes the messages in groups of a pipeline stage, and a
// message larger than a stage in chunks of one; a group's results, or a
// chunk's, are written only once complete. When the device fails in the
// middle of a call, the messages it finished keep its results, a large
// message's unfinished chunks are finished on the CPU, and the other
// messages (their Data untouched, in place too) are computed on the CPU;
// the failure is reported through OnFallback. The same holds for Open,
// whose failed elements get no plaintext, only their error.
//
// The call holds the keys of its valid elements until it returns: a key
// destroyed during the call (Key.Destroy, which waits) still computes
// every element that found it live, so no element fails half-way, in
// place or not. An element whose key was destroyed before the call
// checked it fails with ErrKeyDestroyed and its Data and Out are not
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
	segments []uint32 // the message of each segment (nil for one message)
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
	return m.Key.acquire()
}

// validate checks every element (on all cores) and returns the valid ones,
// whose keys it holds (releaseKeys).
func validate(msgs []Message, errs []error, open bool, deviceLen int) []int {
	batch.Parallel(len(msgs), 1024, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			errs[i] = checkMessage(&msgs[i], open, deviceLen)
		}
	})
	var valid []int
	for i := range msgs {
		if errs[i] == nil {
			valid = append(valid, i)
		}
	}
	return valid
}

// releaseKeys releases the keys of the elements idx of msgs, held by
// validate.
func releaseKeys(msgs []Message, idx []int) {
	batch.Parallel(len(idx), 1024, func(lo, hi int) {
		for _, i := range idx[lo:hi] {
			msgs[i].Key.release()
		}
	})
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
			if p.segments != nil {
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

// A key record (kernels/aes.cl): the schedule (60 words), the rounds at
// word 60, H..H⁴ from word 64, then from word keyRecordLevels the power
// each reduction level l ≥ 1 combines with, H^(segment·16^(l−1)).
const keyRecordLevels = 80

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
			r[60] = uint32(k.rounds)
			put := func(at int, x fieldElement) {
				w := x.words()
				copy(r[at:], w[:])
			}
			for i, x := range k.hashSmall {
				put(64+4*i, x)
			}
			for l := 1; l <= p.levelCount(); l++ {
				put(keyRecordLevels+4*(l-1), k.hashPowers[int(e.segLog)+gcmGroupLog*(l-1)])
			}
		}
	})
	return out
}

func (e *Engine) gcm(msgs []Message, open bool) ([][]byte, error) {
	errs := make([]error, len(msgs))
	valid := validate(msgs, errs, open, -1)
	defer releaseKeys(msgs, valid)
	res := newResults(msgs, valid, open)
	if len(valid) > 0 {
		check := e.newGCMCheck(msgs, valid, open, res)
		done := make([]bool, len(msgs))
		if err := e.gcmOnDevice(msgs, valid, open, res, errs, done); err != nil {
			// The elements the device finished keep its results (an
			// element computed in place has lost its input); the others,
			// untouched, are computed on the CPU.
			e.fellBack(err)
			var rest []int
			for _, i := range valid {
				if !done[i] {
					rest = append(rest, i)
				}
			}
			e.gcmCPU(msgs, rest, open, res, errs)
		} else {
			e.alterResults(res.out)
		}
		res = e.checkGCM(check, msgs, valid, open, res, errs)
	}
	return res.out, batch.Collect(errs)
}

// results are the outputs of a GCM batch: one allocation, cut per element.
type results struct {
	out [][]byte
}

func newResults(msgs []Message, valid []int, open bool) *results {
	size := func(m *Message) int {
		n := bodyLen(m, open, -1)
		if !open {
			n += TagSize
		}
		return n
	}
	total := 0
	for _, i := range valid {
		if n := size(&msgs[i]); cap(msgs[i].Out) < n {
			total += n
		}
	}
	backing := make([]byte, total)
	r := &results{out: make([][]byte, len(msgs))}
	off := 0
	for _, i := range valid {
		n := size(&msgs[i])
		if cap(msgs[i].Out) >= n {
			r.out[i] = msgs[i].Out[:n]
			continue
		}
		r.out[i] = backing[off : off+n : off+n]
		off += n
	}
	return r
}

// stageCost is an upper bound on the staging bytes a message takes in a
// pipeline stage: data, AAD, descriptor, key record, tag, verdict, segment
// map and reduction units.
func (e *Engine) stageCost(m *Message, open bool) int {
	body := bodyLen(m, open, -1)
	blocks := (len(m.AAD)+15)/16 + (body+15)/16 + 1
	segs := blocks>>e.segLog + 1
	return align16(body) + align16(len(m.AAD)) + 64 + 4*(keyRecordLevels+4*9) + 16 + 4 + 4*segs + 16*(segs/8+2)
}

// gcmOnDevice runs the valid elements: batches of them that fit a pipeline
// stage go through the pipeline; larger messages one by one through
// device buffers of their size. done[i] says that element i's result (and
// error) is final; on an error, the elements not done are untouched: their
// results, their errors and their Data, even when Out is Data.
func (e *Engine) gcmOnDevice(msgs []Message, valid []int, open bool, res *results, errs []error, done []bool) error {
	var groups [][]int
	var large []int
	var cur []int
	used := 0
	for _, i := range valid {
		c := e.stageCost(&msgs[i], open)
		if c > e.stageSize {
			large = append(large, i)
			continue
		}
		if used+c > e.stageSize {
			groups = append(groups, cur)
			cur, used = nil, 0
		}
		cur = append(cur, i)
		used += c
	}
	if cur != nil {
		groups = append(groups, cur)
	}
	if len(groups) > 0 {
		if err := e.pipeline(len(groups), true, func(k int, st *stage) (func() error, error) {
			return e.gcmStage(msgs, groups[k], open, st, res, errs, done)
		}); err != nil {
			return err
		}
	}
	for _, i := range large {
		if err := e.gcmLarge(msgs, i, open, res, errs, done); err != nil {
			return err
		}
	}
	return nil
}

// words views b (4-byte aligned) as little-endian words.
func words(b []byte) []uint32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), len(b)/4)
}

// gcmStage is one pipeline job: the elements idx, packed into the stage's
// staging memory, copied in, computed, and copied back; the function it
// returns waits and writes the results, and marks the elements done, only
// when every command of the job was enqueued and has completed.
func (e *Engine) gcmStage(msgs []Message, idx []int, open bool, st *stage, res *results, errs []error, done []bool) (func() error, error) {
	p := e.plan(msgs, idx, open, -1)
	n := len(idx)
	// Staging layout: data, AAD, key records, descriptors, segment map,
	// reduction units, tags (expected or computed), verdicts.
	host := st.host.Bytes
	at := 0
	region := func(size int) []byte {
		r := host[at : at+size : at+size]
		at += align16(size)
		return r
	}
	data := region(max(p.dataSize, 16))
	aad := region(max(p.aadSize, 16))
	keys := words(region(4 * len(p.keys) * p.keyWords))
	descs := words(region(4 * len(p.messages)))
	segments := p.segments
	if segments == nil {
		segments = []uint32{0}
	}
	segs := words(region(4 * len(segments)))
	units := make([][]uint32, len(p.levels))
	for l, u := range p.levels {
		units[l] = words(region(4 * len(u)))
	}
	tags := words(region(16 * n))
	verdicts := words(region(4 * n))
	if at > len(host) {
		return nil, fmt.Errorf("aes: GCM stage of %d bytes overflows the %d-byte staging (a bug)", at, len(host))
	}
	batch.Parallel(n, 256, func(lo, hi int) {
		for mi := lo; mi < hi; mi++ {
			m := &msgs[idx[mi]]
			body := m.Data[:bodyLen(m, open, -1)]
			d := data[p.dataOff[mi]:]
			copy(d, body)
			clear(d[len(body):align16(len(body))])
			a := aad[p.aadOff[mi]:]
			copy(a, m.AAD)
			clear(a[len(m.AAD):align16(len(m.AAD))])
			if open {
				tag := m.Data[len(body):]
				for w := range 4 {
					tags[4*mi+w] = binary.LittleEndian.Uint32(tag[4*w:])
				}
			}
		}
	})
	e.keyRecords(p, keys)
	copy(descs, p.messages)
	copy(segs, segments)
	for l, u := range p.levels {
		copy(units[l], u)
	}

	lease := e.pool.Lease(st.q)
	var l launches
	var writes, reads []*device.Event
	enqueued := false // every command of the job
	finish := func() error {
		err := waitAll(append(writes, reads...)...)
		if werr := e.wait(l); err == nil {
			err = werr
		}
		if err == nil && enqueued {
			e.gcmResults(p, msgs, data, tags, verdicts, res, errs)
			for _, i := range idx {
				done[i] = true
			}
		}
		return e.finishDevice(lease, nil, err)
	}
	upload := func(b []byte, secret bool) (*device.Buffer, error) {
		buf, err := lease.Buffer(max(len(b), 4), secret)
		if err != nil || len(b) == 0 {
			return buf, err
		}
		ev, err := st.q.Write(buf, 0, b)
		if err == nil {
			writes = append(writes, ev)
		}
		return buf, err
	}
	var bufs [6]*device.Buffer
	for i, r := range []struct {
		b      []byte
		secret bool
	}{{data, true}, {aad, true}, {device.Uint32Bytes(keys), true}, {device.Uint32Bytes(descs), true},
		{device.Uint32Bytes(segs), false}, {device.Uint32Bytes(tags), true}} {
		var err error
		if bufs[i], err = upload(r.b, r.secret); err != nil {
			return finish, err
		}
	}
	dunits := make([]*device.Buffer, len(units))
	for lv, u := range units {
		var err error
		if dunits[lv], err = upload(device.Uint32Bytes(u), false); err != nil {
			return finish, err
		}
	}
	dvalues, err := lease.Buffer(16*p.values, true)
	if err != nil {
		return finish, err
	}
	dekj0, err := lease.Buffer(16*n, true)
	if err != nil {
		return finish, err
	}
	if n == 1 { // aes_ctr encrypts a single message: E(K, J0) from the host
		words, err := singleEKJ0(p)
		if err != nil {
			return finish, err
		}
		err = dekj0.Write(0, device.Uint32Bytes(words))
		clear(words)
		if err != nil {
			return finish, err
		}
	}
	dok, err := lease.Buffer(4*n, true)
	if err != nil {
		return finish, err
	}
	if err := e.launchGCM(st.q, &l, p, bufs[2], bufs[3], bufs[4], bufs[0], bufs[0], bufs[1], dunits, dvalues, dekj0, bufs[5], dok); err != nil {
		return finish, err
	}
	ev, err := st.q.Read(bufs[0], 0, data)
	if err != nil {
		return finish, err
	}
	reads = append(reads, ev)
	if open {
		ev, err = st.q.Read(dok, 0, device.Uint32Bytes(verdicts))
	} else {
		ev, err = st.q.Read(bufs[5], 0, device.Uint32Bytes(tags))
	}
	if err != nil {
		return finish, err
	}
	reads = append(reads, ev)
	enqueued = true
	return finish, nil
}

// gcmResults writes the results of plan p from the data read back (packed
// as the plan lays it out) and the tags (seal) or verdicts (open).
func (e *Engine) gcmResults(p *gcmPlan, msgs []Message, data []byte, tags, verdicts []uint32, res *results, errs []error) {
	batch.Parallel(len(p.index), 256, func(lo, hi int) {
		for mi := lo; mi < hi; mi++ {
			i := p.index[mi]
			dst := res.out[i]
			if p.open {
				if verdicts[mi] != 1 {
					errs[i] = ErrOpen
					clear(dst)
					res.out[i] = nil
					continue
				}
				copy(dst, data[p.dataOff[mi]:])
				continue
			}
			body := len(dst) - TagSize
			copy(dst, data[p.dataOff[mi]:p.dataOff[mi]+body])
			for w := range 4 {
				binary.LittleEndian.PutUint32(dst[body+4*w:], tags[4*mi+w])
			}
		}
	})
}

// gcmCPU computes the planned messages with crypto/cipher's GCM (gcmOne).
func (e *Engine) gcmCPU(msgs []Message, valid []int, open bool, res *results, errs []error) {
	batch.Parallel(len(valid), 64, func(lo, hi int) {
		for _, i := range valid[lo:hi] {
			out, err := gcmOne(&msgs[i], open, res.out[i])
			res.out[i], errs[i] = out, err
		}
	})
}

// gcmOne seals or opens m with crypto/cipher's GCM into dst[:0] (which
// may be m.Data itself: in place). A message that does not open gives
// ErrOpen and leaves dst zeroed; a failed element's result is nil.
func gcmOne(m *Message, open bool, dst []byte) ([]byte, error) {
	block := m.Key.cipherBlock()
	if block == nil {
		return nil, ErrKeyDestroyed
	}
	aead, err := cipher.NewGCMWithNonceSize(block, len(m.Nonce))
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

// gcmLarge runs message i, larger than a pipeline stage, through the
// pipeline in chunks of a stage: each chunk is encrypted (or decrypted) on
// the device, which also returns the GHASH of the chunk's ciphertext,
// V = Σ X_j·H^(n−j+1) over its n blocks; the host chains them,
// Y ← Y·Hⁿ ⊕ V, starting from the GHASH of the AAD and ending with the
// lengths block and E(K, J0), all in constant time (ghash.go). Open writes
// the plaintext as it goes and zeroes it if the tag does not match.
//
// A chunk's result is written only once every command of the chunk has
// completed. When the device fails, the chunks it did not finish (their
// input untouched, even in place) are finished on the CPU (gcmChunkCPU):
// the message is then done (done[i]) and the device's error returned, for
// the caller to report and to redo the elements not done.
func (e *Engine) gcmLarge(msgs []Message, i int, open bool, res *results, errs []error, done []bool) error {
	m := &msgs[i]
	body := bodyLen(m, open, -1)
	text := m.Data[:body]
	out := res.out[i]
	k := m.Key // held by the call (validate)
	h, powers := k.hashPowers[0], k.hashPowers
	j0 := counterBlock(h, m.Nonce)
	chunk := e.stageSize
	chunks := (body + chunk - 1) / chunk
	parts := make([]fieldElement, chunks)
	finished := make([]bool, chunks)
	// pinned input and output: the device copies from and to them
	// directly; into the staging when in place, so that a copy that fails
	// half-way does not write over input
	direct := device.Pinned(text) && device.Pinned(out[:body])
	directOut := direct && !inPlace(out, text)
	derr := e.pipeline(chunks, true, func(c int, st *stage) (func() error, error) {
		off := c * chunk
		n := min(chunk, body-off)
		host, back := st.host.Bytes[:n], st.host.Bytes[:n]
		if direct {
			host = text[off : off+n]
		} else {
			parallelCopy(host, text[off:off+n])
		}
		if directOut {
			back = out[off : off+n]
		}
		part := []Message{{Key: k, Nonce: m.Nonce}}
		p := e.planGHASH(part, []int{0}, open, n, 0)
		// this chunk's counter blocks start at block off/16
		first := binary.BigEndian.Uint32(j0[12:]) + uint32(off/BlockSize)
		var ctr [4]byte
		binary.BigEndian.PutUint32(ctr[:], first)
		p.messages[11] = binary.LittleEndian.Uint32(ctr[:])
		lease := e.pool.Lease(st.q)
		var l launches
		var events []*device.Event // the copies
		enqueued := false          // every command of the chunk
		value := make([]uint32, 4)
		finish := func() error {
			err := waitAll(events...)
			if werr := e.wait(l); err == nil {
				err = werr
			}
			if err == nil && enqueued {
				if !directOut {
					parallelCopy(out[off:off+n], back)
				}
				parts[c] = fieldElement{uint64(value[0])<<32 | uint64(value[1]), uint64(value[2])<<32 | uint64(value[3])}
				finished[c] = true
			}
			return e.finishDevice(lease, nil, err)
		}
		buf, err := lease.Buffer(n, true)
		if err != nil {
			return finish, err
		}
		ev, err := st.q.Write(buf, 0, host)
		if err != nil {
			return finish, err
		}
		events = append(events, ev)
		daad, err := lease.Buffer(16, true)
		if err != nil {
			return finish, err
		}
		keys, err := uploadSecret(lease, e.keyRecords(p, nil))
		if err != nil {
			return finish, err
		}
		descs, err := lease.Upload(p.messages, true)
		if err != nil {
			return finish, err
		}
		segs, err := lease.Upload([]uint32{0}, false)
		if err != nil {
			return finish, err
		}
		units := make([]*device.Buffer, len(p.levels))
		for lv, u := range p.levels {
			if units[lv], err = lease.Upload(u, false); err != nil {
				return finish, err
			}
		}
		values, err := lease.Buffer(16*p.values, true)
		if err != nil {
			return finish, err
		}
		// gcm_finish runs too, on a zero E(K, J0): its tag is not used.
		small, err := lease.Buffer(64, true)
		if err != nil {
			return finish, err
		}
		if err := e.launchGCM(st.q, &l, p, keys, descs, segs, buf, buf, daad, units, values, small, small, small); err != nil {
			return finish, err
		}
		if ev, err = st.q.Read(buf, 0, back); err != nil {
			return finish, err
		}
		events = append(events, ev)
		if ev, err = st.q.Read(values, 16*int(p.messages[12]), device.Uint32Bytes(value)); err != nil {
			return finish, err
		}
		events = append(events, ev)
		enqueued = true
		return finish, nil
	})
	block := k.cipherBlock() // not nil: the call holds k
	if derr != nil {
		forEachNotDone(finished, func(c int) {
			off := c * chunk
			n := min(chunk, body-off)
			parts[c] = gcmChunkCPU(block, h, j0, off, out[off:off+n], text[off:off+n], open)
		})
	}
	y := ghash(h, m.AAD)
	for c, v := range parts {
		n := min(chunk, body-c*chunk)
		y = y.mul(power(&powers, uint64((n+15)/16))).xor(v)
	}
	y = y.xor(fieldElement{uint64(len(m.AAD)) * 8, uint64(body) * 8}).mul(h)
	var tag, ekj0 [16]byte
	block.Encrypt(ekj0[:], j0[:])
	y.bytes(tag[:])
	for b := range tag {
		tag[b] ^= ekj0[b]
	}
	done[i] = true
	if !open {
		copy(out[body:], tag[:])
		return derr
	}
	if subtle.ConstantTimeCompare(tag[:], m.Data[body:]) != 1 {
		clear(out)
		errs[i], res.out[i] = ErrOpen, nil
	}
	return derr
}

// gcmChunkCPU is a chunk of gcmLarge on the CPU: src, the bytes of the
// message from off (a multiple of 16), encrypted (or decrypted) into dst
// (which may be src) in GCM's counter mode, whose counter, the last 32
// bits of the counter block, starts at J0's plus 1 + off/16 and wraps
// modulo 2³². It returns the chunk's GHASH value, V of the ciphertext
// (hashed before it is overwritten, to open).
func gcmChunkCPU(block cipher.Block, h fieldElement, j0 [16]byte, off int, dst, src []byte, open bool) fieldElement {
	var v fieldElement
	if open {
		v = ghash(h, src)
	}
	ctr := j0
	binary.BigEndian.PutUint32(ctr[12:], binary.BigEndian.Uint32(j0[12:])+1+uint32(off/BlockSize))
	var stream [BlockSize]byte
	for at := 0; at < len(src); at += BlockSize {
		block.Encrypt(stream[:], ctr[:])
		subtle.XORBytes(dst[at:], src[at:min(at+BlockSize, len(src))], stream[:])
		binary.BigEndian.PutUint32(ctr[12:], binary.BigEndian.Uint32(ctr[12:])+1)
	}
	clear(stream[:])
	if !open {
		v = ghash(h, dst[:len(src)])
	}
	return v
}

// smallGlobal is the launch size of the table-free GCM kernels (work-groups
// of 64).
func (e *Engine) smallGlobal(work int) int {
	return max((work+63)/64, 1) * 64
}

// runGCM uploads the plan's metadata, runs the kernels on din (data) and
// daad into dout on the default queue, and reads back the tags (seal) or
// the verdicts (open: tags[m] = 1 when message m's tag matched) into
// tags, which holds the expected tags on entry for open.
func (e *Engine) runGCM(lease *device.Lease, l *launches, p *gcmPlan, din, dout, daad *device.Buffer, tags []uint32) error {
	n := len(p.index)
	keys, err := uploadSecret(lease, e.keyRecords(p, nil))
	if err != nil {
		return err
	}
	descs, err := lease.Upload(p.messages, true)
	if err != nil {
		return err
	}
	segments := p.segments
	if segments == nil {
		segments = []uint32{0} // one message: the kernel reads no map
	}
	segs, err := lease.Upload(segments, false)
	if err != nil {
		return err
	}
	units := make([]*device.Buffer, len(p.levels))
	for lv, u := range p.levels {
		if units[lv], err = lease.Upload(u, false); err != nil {
			return err
		}
	}
	values, err := lease.Buffer(16*p.values, true)
	if err != nil {
		return err
	}
	var ekj0 *device.Buffer
	if n == 1 {
		words, err := singleEKJ0(p)
		if err != nil {
			return err
		}
		ekj0, err = uploadSecret(lease, words)
	} else {
		ekj0, err = lease.Buffer(16*n, true)
	}
	if err != nil {
		return err
	}
	dtags, err := lease.Upload(tags, true)
	if err != nil {
		return err
	}
	ok, err := lease.Buffer(4*n, true)
	if err != nil {
		return err
	}
	if err := e.launchGCM(nil, l, p, keys, descs, segs, din, dout, daad, units, values, ekj0, dtags, ok); err != nil {
		return err
	}
	if p.open {
		return ok.Read(0, device.Uint32Bytes(tags[:n]))
	}
	return dtags.Read(0, device.Uint32Bytes(tags))
}

// launchGCM enqueues the GCM kernels on q (nil: the default queue):
// counter mode (gcm_crypt, or aes_ctr for one message, whose E(K, J0) the
// caller has written into ekj0) before gcm_hash to seal, after it to open
// (the ciphertext is hashed, and dout may be din), then one gcm_reduce per
// level and gcm_finish.
func (e *Engine) launchGCM(q *device.Queue, l *launches, p *gcmPlan, keys, descs, segs, din, dout, daad *device.Buffer,
	units []*device.Buffer, values, ekj0, tags, ok *device.Buffer) error {
	q, err := e.queue(q)
	if err != nil {
		return err
	}
	n := len(p.index)
	crypt := func() error {
		if n == 1 {
			k := p.keys[0]
			ctr, err := e.prog.Kernel("aes_ctr")
			if err != nil {
				return err
			}
			length := int(p.messages[2])
			if length == 0 {
				return nil
			}
			blocks, tail := length/BlockSize, length%BlockSize
			total := blocks
			if tail > 0 {
				total++
			}
			d := p.messages
			return l.add(e.launch(q, ctr, e.globalSize(total), e.group, device.Local(e.tableBytes(false)), e.tables, keys, uint32(k.rounds),
				d[8], d[9], d[10], d[11], uint64(1), uint32(1), din, dout, uint32(blocks), uint32(tail)))
		}
		kern, err := e.prog.Kernel("gcm_crypt")
		if err != nil {
			return err
		}
		return l.add(e.launch(q, kern, e.globalSize(p.nsegs), e.group, device.Local(e.tableBytes(false)), e.tables,
			keys, uint32(p.keyWords), descs, uint32(n), segs, din, dout, ekj0, uint32(p.nsegs)))
	}
	hash := func(text *device.Buffer) error {
		kern, err := e.prog.Kernel("gcm_hash")
		if err != nil {
			return err
		}
		return l.add(e.launch(q, kern, e.hashGlobal(p.nsegs), ghashGroup, keys, uint32(p.keyWords), descs, uint32(n), segs,
			text, daad, values, uint32(p.nsegs)))
	}
	if p.open {
		if err := hash(din); err != nil {
			return err
		}
		if err := crypt(); err != nil {
			return err
		}
	} else {
		if err := crypt(); err != nil {
			return err
		}
		if err := hash(dout); err != nil {
			return err
		}
	}
	red, err := e.prog.Kernel("gcm_reduce")
	if err != nil {
		return err
	}
	for lv, u := range p.levels {
		count := len(u) / 4
		if err := l.add(e.launch(q, red, e.smallGlobal(count), 64, units[lv], keys, uint32(p.keyWords), uint32(lv+1), values, uint32(count))); err != nil {
			return err
		}
	}
	if len(p.single) > 0 {
		one, err := e.prog.Kernel("gcm_reduce_one")
		if err != nil {
			return err
		}
		for lv, r := range p.single {
			nu := (r.count + 1<<gcmGroupLog - 1) >> gcmGroupLog
			if err := l.add(e.launch(q, one, e.smallGlobal(nu), 64, keys, uint32(lv+1), values,
				uint32(r.in), uint32(r.count), uint32(r.out))); err != nil {
				return err
			}
		}
	}
	fin, err := e.prog.Kernel("gcm_finish")
	if err != nil {
		return err
	}
	decrypt := uint32(0)
	if p.open {
		decrypt = 1
	}
	return l.add(e.launch(q, fin, e.smallGlobal(n), 64, descs, values, ekj0, tags, ok, uint32(n), decrypt))
}

// uploadSecret uploads words (key records, E(K, J0)) into a secret buffer
// of lease and zeroes the host copy.
func uploadSecret(lease *device.Lease, words []uint32) (*device.Buffer, error) {
	defer clear(words)
	return lease.Upload(words, true)
}

// ghashGroup is the work-group size of gcm_hash (GHASH_GROUP).
const ghashGroup = 256

// hashGlobal is the launch size of gcm_hash: whole groups, at most eight
// per compute unit (the kernel loops).
func (e *Engine) hashGlobal(work int) int {
	groups := min((work+ghashGroup-1)/ghashGroup, 8*e.dev.ComputeUnits)
	return max(groups, 1) * ghashGroup
}

// singleEKJ0 is E(K, J0) of a plan with one message, computed on the host
// (aes_ctr, which encrypts a single message, does not), as the words
// gcm_finish reads.
func singleEKJ0(p *gcmPlan) ([]uint32, error) {
	block := p.keys[0].cipherBlock()
	if block == nil {
		return nil, ErrKeyDestroyed
	}
	var j0, out [16]byte
	for w := range 4 {
		binary.LittleEndian.PutUint32(j0[4*w:], p.messages[8+w])
	}
	block.Encrypt(out[:], j0[:])
	words := make([]uint32, 4)
	for w := range 4 {
		words[w] = binary.LittleEndian.Uint32(out[4*w:])
	}
	return words, nil
}

// SealDevice encrypts n bytes of src into dst, device buffers of the
// engine's device (dst may be src), with AES-GCM under k, nonce and aad
// (host memory), and returns the tag.
func (e *Engine) SealDevice(k *Key, nonce, aad []byte, dst, src *device.Buffer, n int) ([]byte, error) {
	tags, err := e.gcmResident(k, nonce, aad, dst, src, n, nil)
	if err != nil {
		return nil, err
	}
	tag := make([]byte, TagSize)
	for w := range 4 {
		binary.LittleEndian.PutUint32(tag[4*w:], tags[w])
	}
	return tag, nil
}

// OpenDevice checks tag and decrypts n bytes of src into dst (device
// buffers; dst may be src). When the tag does not match it returns
// ErrOpen and zeroes the n bytes of dst: no plaintext is released.
func (e *Engine) OpenDevice(k *Key, nonce, aad, tag []byte, dst, src *device.Buffer, n int) error {
	if len(tag) != TagSize {
		return fmt.Errorf("aes: GCM tag of %d bytes, want %d", len(tag), TagSize)
	}
	_, err := e.gcmResident(k, nonce, aad, dst, src, n, tag)
	return err
}

func (e *Engine) gcmResident(k *Key, nonce, aad []byte, dst, src *device.Buffer, n int, tag []byte) ([]uint32, error) {
	if err := checkDeviceBuffers(dst, src, n); err != nil {
		return nil, err
	}
	open := tag != nil
	msgs := []Message{{Key: k, Nonce: nonce, AAD: aad}}
	if err := checkMessage(&msgs[0], open, n); err != nil {
		return nil, err
	}
	defer k.release()
	p := e.plan(msgs, []int{0}, open, n)
	tags := make([]uint32, 4)
	if open {
		for w := range 4 {
			tags[w] = binary.LittleEndian.Uint32(tag[4*w:])
		}
	}
	lease := e.pool.Lease(nil)
	var l launches
	err := func() error {
		daad, err := lease.Buffer(max(len(aad), 16), true)
		if err != nil {
			return err
		}
		if len(aad) > 0 {
			if err := daad.Write(0, aad); err != nil {
				return err
			}
		}
		if err := e.runGCM(lease, &l, p, src, dst, daad, tags); err != nil {
			return err
		}
		if open && tags[0] != 1 && n > 0 {
			return dst.Fill([]byte{0}, 0, n)
		}
		return nil
	}()
	if err := e.finishDevice(lease, l, err); err != nil {
		return nil, err
	}
	if open && tags[0] != 1 {
		return nil, ErrOpen
	}
	return tags, nil
}
