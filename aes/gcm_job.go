package aes

import (
	"bytes"
	"crypto/subtle"
	"encoding/binary"
	"math/bits"
	"runtime"
	"sync/atomic"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// gcm runs a Seal or Open call through the engine's core: the valid
// messages as the elements of a job (gcmJob), then the tags of the
// messages larger than a batch, which the job computes in pieces.
func (e *Engine) gcm(msgs []Message, open bool) ([][]byte, error) {
	j := e.newGCMJob(msgs, open)
	defer j.releaseKeys()
	if j.count == 0 {
		return j.out, j.collect()
	}
	op := "GCM seal"
	if open {
		op = "GCM open"
	}
	plan := engine.Plan{Op: op, Size: j.sizeClass, N: j.count, Cut: j.cut, Depth: e.depth}
	if err := e.core.Run(plan, j); err != nil {
		return nil, err
	}
	j.finishLarge()
	return j.out, j.collect()
}

// gcmJob is one Seal or Open call: its elements are units, each a whole
// message or, for a message larger than a batch (Config.StageBytes), a
// piece of one, whose GHASH values the host chains into the tag once all
// are done (finishLarge).
//
// The keys are held (Key.acquire) as follows. A large message's from the
// check on (its pieces may run on the device and the CPU, and its tag is
// computed after them). The other messages': for the device batches, from
// before the first of them (Prepare) until the call returns, so that a
// batch the device fails is recomputed on the CPU with the same keys; on
// the CPU, not at all: CPU reads them in a pass of keyReaders, each
// checked when its message is computed, so that a batch of many keys
// reads each key's line once (a pass that held every key first, then
// another that computed, read each twice, and a third released it).
type gcmJob struct {
	e    *Engine
	msgs []Message
	open bool
	out  [][]byte // the results, one per message
	errs []error  // the errors, one per message
	// invalid counts the messages that failed their check; failed is set
	// when a later step writes an element's error (collect looks at errs
	// only then).
	invalid int
	failed  atomic.Bool
	// units are the job's elements; nil when they are the messages
	// themselves, all valid and none larger than a batch (unit k is
	// message k): a batch of a million records needs no list.
	units     []gcmUnit
	count     int                   // the number of units
	large     map[int]*largeMessage // by message
	sizeClass int                   // the size class of the units (engine.Plan.Size)
	longest   int                   // the longest plaintext or ciphertext among the messages
	// prepared is the range of units whose keys Prepare holds, for the
	// device (nil: none).
	prepared atomic.Pointer[preparedUnits]
}

// preparedUnits are the units [lo, hi) of the device's part of a call:
// held[k-lo] says whether Prepare holds unit k's key (it failed for a key
// closed before, and never holds a piece's: the check did), cost[k-lo] is
// a whole message's staging bytes (stageCost), for cut.
type preparedUnits struct {
	lo, hi int
	held   []bool
	cost   []int
}

// gcmUnit is a whole message (piece < 0) or piece piece of a large one,
// its bytes from piece·batchBytes.
type gcmUnit struct{ msg, piece int }

// largeMessage is what the pieces of a large message leave for its tag:
// the counter block and each piece's GHASH value W of its ciphertext
// (ghashW); or, when the CPU computed the message whole (whole), nothing:
// its result and error are final.
type largeMessage struct {
	j0    [16]byte
	parts []fieldElement
	whole bool
}

// gcmRange is a range of a call's messages as newGCMJob lays it out on
// one core: its counts, and where its results and units go.
type gcmRange struct {
	lo, hi    int
	invalid   int
	units     int   // units of its valid messages
	unitBytes int   // their bytes (a piece counts a whole batch)
	backing   int   // result bytes that its messages' Out cannot hold
	longest   int   // its longest plaintext or ciphertext
	large     []int // its messages larger than a batch
	unitAt    int   // its first unit in the job's
	backingAt int   // its first byte of the shared result memory
}

// newGCMJob checks every message but for whether its key is closed (that
// is checked where the key is held or read: see gcmJob), holds the keys of
// the large ones, and lays the call out: the results (in Out where its
// capacity holds them, else in one allocation shared by the call) and the
// units. It runs on all cores, in contiguous ranges of messages: a batch
// of a million records costs no pass over them on one core.
func (e *Engine) newGCMJob(msgs []Message, open bool) *gcmJob {
	j := &gcmJob{e: e, msgs: msgs, open: open, out: make([][]byte, len(msgs)), errs: make([]error, len(msgs))}
	ranges := make([]gcmRange, max(1, min(4*runtime.GOMAXPROCS(0), len(msgs)/1024)))
	for r := range ranges {
		ranges[r].lo, ranges[r].hi = r*len(msgs)/len(ranges), (r+1)*len(msgs)/len(ranges)
	}
	batch.Parallel(len(ranges), 1, func(a, b int) {
		for r := a; r < b; r++ {
			j.checkRange(&ranges[r])
		}
	})
	backing, large := 0, 0
	for r := range ranges {
		g := &ranges[r]
		g.unitAt, g.backingAt = j.count, backing
		j.count += g.units
		backing += g.backing
		j.invalid += g.invalid
		large += len(g.large)
		j.longest = max(j.longest, g.longest)
		j.sizeClass += g.unitBytes // the total, for now
	}
	if j.count > 0 {
		j.sizeClass = bits.Len(uint(j.sizeClass / j.count))
	}
	if large > 0 {
		j.large = make(map[int]*largeMessage, large)
		for r := range ranges {
			for _, i := range ranges[r].large {
				m := &msgs[i]
				pieces := (bodyLen(m, open, -1) + e.batchBytes - 1) / e.batchBytes
				j.large[i] = &largeMessage{j0: counterBlock(m.Key.hashPowers[0], m.Nonce), parts: make([]fieldElement, pieces)}
			}
		}
	}
	if backing == 0 && j.invalid == 0 && large == 0 {
		return j
	}
	shared := make([]byte, backing)
	if j.invalid > 0 || large > 0 {
		j.units = make([]gcmUnit, j.count)
	}
	batch.Parallel(len(ranges), 1, func(a, b int) {
		for r := a; r < b; r++ {
			j.placeRange(&ranges[r], shared)
		}
	})
	return j
}

// checkRange checks the messages of g (holding the keys of the valid
// large ones) and counts what placeRange will lay out.
func (j *gcmJob) checkRange(g *gcmRange) {
	e, open := j.e, j.open
	for i := g.lo; i < g.hi; i++ {
		m := &j.msgs[i]
		err := checkFields(m, open, -1)
		// stageCost is at most about 1.4 times the data and AAD plus
		// 650 bytes: below half a batch (at least 4096 bytes) it fits
		large := err == nil && 2*(len(m.Data)+len(m.AAD)) > e.batchBytes && e.stageCost(m, open) > e.batchBytes
		if large {
			err = m.Key.acquire()
		}
		if err != nil {
			j.errs[i] = err
			g.invalid++
			continue
		}
		body := bodyLen(m, open, -1)
		g.longest = max(g.longest, body)
		if n := resultLen(body, open); cap(m.Out) < n {
			g.backing += n
		} else if large {
			j.out[i] = m.Out[:n] // the others' when they are held (resultSlot)
		}
		if large {
			pieces := (body + e.batchBytes - 1) / e.batchBytes
			g.large = append(g.large, i)
			g.units += pieces
			g.unitBytes += pieces * e.batchBytes
			continue
		}
		g.units++
		g.unitBytes += len(m.Data)
	}
}

// placeRange gives the valid messages of g whose Out is too small their
// part of shared, and writes g's units (when the job lists them).
func (j *gcmJob) placeRange(g *gcmRange, shared []byte) {
	at, unit := g.backingAt, g.unitAt
	for i := g.lo; i < g.hi; i++ {
		if j.errs[i] != nil {
			continue
		}
		m := &j.msgs[i]
		body := bodyLen(m, j.open, -1)
		if n := resultLen(body, j.open); cap(m.Out) < n {
			j.out[i] = shared[at : at+n : at+n]
			at += n
		}
		if j.units == nil {
			continue
		}
		if lm := j.large[i]; lm != nil {
			for c := range lm.parts {
				j.units[unit] = gcmUnit{msg: i, piece: c}
				unit++
			}
			continue
		}
		j.units[unit] = gcmUnit{msg: i, piece: -1}
		unit++
	}
}

// resultLen is the length of the result of a message of body bytes.
func resultLen(body int, open bool) int {
	if open {
		return body
	}
	return body + TagSize
}

// unit is unit k of the job.
func (j *gcmJob) unit(k int) gcmUnit {
	if j.units == nil {
		return gcmUnit{msg: k, piece: -1}
	}
	return j.units[k]
}

// releaseKeys releases the keys that the call holds: the large messages'
// and those that Prepare holds.
func (j *gcmJob) releaseKeys() {
	for i := range j.large {
		j.msgs[i].Key.release()
	}
	if p := j.prepared.Load(); p != nil {
		batch.Parallel(p.hi-p.lo, 1024, func(a, b int) {
			for k := p.lo + a; k < p.lo+b; k++ {
				if p.held[k-p.lo] {
					j.msgs[j.unit(k).msg].Key.release()
				}
			}
		})
	}
}

// Prepare implements engine.Preparer: it holds the keys of the whole
// messages among the units [lo, hi), which the device computes (and the
// CPU recomputes where a batch fails), until the call returns; a message
// whose key was closed fails with ErrKeyDestroyed.
func (j *gcmJob) Prepare(lo, hi int) error {
	p := &preparedUnits{lo: lo, hi: hi, held: make([]bool, hi-lo), cost: make([]int, hi-lo)}
	batch.Parallel(hi-lo, 1024, func(a, b int) {
		for k := lo + a; k < lo+b; k++ {
			u := j.unit(k)
			if u.piece >= 0 {
				continue // held since the check
			}
			m := &j.msgs[u.msg]
			p.cost[k-lo] = j.e.stageCost(m, j.open)
			if err := m.Key.acquire(); err != nil {
				j.fail(u.msg, err)
				continue
			}
			j.resultSlot(u.msg)
			p.held[k-lo] = true
		}
	})
	j.prepared.Store(p)
	return nil
}

// Finish implements engine.Preparer: the keys stay held until the call
// returns (releaseKeys).
func (j *gcmJob) Finish(failed bool) {}

// holds reports whether unit k is a whole message whose key Prepare holds
// (held) and whether Prepare prepared it at all (prepared): a unit it did
// not prepare is computed on the CPU, whose pass of keyReaders checks its
// key (cpuHold).
func (j *gcmJob) holds(k int) (held, prepared bool) {
	p := j.prepared.Load()
	if p == nil || k < p.lo || k >= p.hi {
		return false, false
	}
	return p.held[k-p.lo], true
}

// resultSlot is where message i's result goes, set on first use: its Out
// where its capacity holds the result (placeRange gave the others theirs).
// The pass that holds a message's key sets it, on the core that computes
// it, rather than the check: the slot's line is then written once.
func (j *gcmJob) resultSlot(i int) []byte {
	if out := j.out[i]; out != nil {
		return out
	}
	m := &j.msgs[i]
	out := m.Out[:resultLen(bodyLen(m, j.open, -1), j.open)]
	j.out[i] = out
	return out
}

// fail sets message i's error (its result nil).
func (j *gcmJob) fail(i int, err error) {
	j.errs[i], j.out[i] = err, nil
	j.failed.Store(true)
}

// collect is the call's error: nil, or a *batch.Error with the errors of
// the messages that failed.
func (j *gcmJob) collect() error {
	if j.invalid == 0 && !j.failed.Load() {
		return nil
	}
	return batch.Collect(j.errs)
}

// cut is the end of the batch from unit lo: whole messages while their
// staging fits a batch, or one piece alone. The device's part is cut
// after Prepare, which measured each message's staging.
func (j *gcmJob) cut(lo, hi int) int {
	if j.unit(lo).piece >= 0 {
		return lo + 1
	}
	p := j.prepared.Load()
	used, end := 0, lo
	for end < hi {
		u := j.unit(end)
		if u.piece >= 0 {
			break
		}
		var cost int
		if p != nil && end >= p.lo && end < p.hi {
			cost = p.cost[end-p.lo]
		} else {
			cost = j.e.stageCost(&j.msgs[u.msg], j.open)
		}
		if end > lo && used+cost > j.e.batchBytes {
			break
		}
		used += cost
		end++
	}
	return end
}

// Device implements engine.Job.
func (j *gcmJob) Device(ch *engine.Chunk) error {
	if u := j.unit(ch.Lo); u.piece >= 0 {
		return j.devicePiece(ch, u)
	}
	return j.deviceMessages(ch)
}

// piece is the byte offset of piece u in its message, its input and its
// output.
func (j *gcmJob) piece(u gcmUnit) (off int, text, out []byte) {
	m := &j.msgs[u.msg]
	body := bodyLen(m, j.open, -1)
	off = u.piece * j.e.batchBytes
	end := min(off+j.e.batchBytes, body)
	return off, m.Data[off:end], j.out[u.msg][off:end]
}

// deviceMessages is a batch of whole messages on the device: packed into
// staging memory as the plan lays them out, copied in, computed (counter
// mode and GHASH in one pass: launchGCM), copied back; the sampled results are checked
// against crypto/cipher's before any result is written.
func (j *gcmJob) deviceMessages(ch *engine.Chunk) error {
	e, msgs, open := j.e, j.msgs, j.open
	// the messages whose keys Prepare holds (the others failed there);
	// place[k] is the place of unit ch.Lo+k among them, -1 for none
	idx := make([]int, 0, ch.Hi-ch.Lo)
	place := make([]int, ch.Hi-ch.Lo)
	for k := range place {
		place[k] = -1
		if held, _ := j.holds(ch.Lo + k); held {
			place[k] = len(idx)
			idx = append(idx, j.unit(ch.Lo+k).msg)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	p := e.plan(msgs, idx, open, -1)
	n := len(idx)
	segments := p.segments
	// Staging layout: data, AAD, key records, descriptors, segment map,
	// reduction units, tags (expected or computed), verdicts.
	sizes := []int{max(p.dataSize, 16), max(p.aadSize, 16), 4 * len(p.keys) * p.keyWords, 4 * len(p.messages), 4 * len(segments)}
	for _, u := range p.levels {
		sizes = append(sizes, 4*len(u))
	}
	sizes = append(sizes, 16*n, 4*n)
	total := 0
	for _, s := range sizes {
		total += align16(s)
	}
	host, err := ch.Staging(total)
	if err != nil {
		return err
	}
	regions := make([][]byte, len(sizes))
	at := 0
	for r, s := range sizes {
		regions[r] = host[at : at+s : at+s]
		at += align16(s)
	}
	data, aad, keys, descs, segs := regions[0], regions[1], words(regions[2]), words(regions[3]), words(regions[4])
	units := regions[5 : 5+len(p.levels)]
	tags, verdicts := words(regions[len(regions)-2]), words(regions[len(regions)-1])
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
		copy(words(units[l]), u)
	}
	err = ch.Run(func(cmds *device.Commands) error {
		upload := func(b []byte, secret bool) (*device.Buffer, error) {
			buf, err := cmds.Buffer(max(len(b), 4), secret)
			if err != nil || len(b) == 0 {
				return buf, err
			}
			return buf, cmds.Write(buf, b)
		}
		ddata, err := upload(data, true)
		if err != nil {
			return err
		}
		daad, err := upload(aad, true)
		if err != nil {
			return err
		}
		dtags, err := upload(regions[len(regions)-2], true)
		if err != nil {
			return err
		}
		unitWords := make([][]uint32, len(units))
		for lv, u := range units {
			unitWords[lv] = words(u)
		}
		t, err := uploadTables(cmds, p, keys, descs, segs, unitWords)
		if err != nil {
			return err
		}
		dekj0, err := cmds.Buffer(16*n, true)
		if err != nil {
			return err
		}
		dok, err := cmds.Buffer(4*n, true)
		if err != nil {
			return err
		}
		if err := e.launchGCM(cmds, p, t, ddata, ddata, daad, dekj0, dtags, dok); err != nil {
			return err
		}
		if err := cmds.Read(ddata, data); err != nil {
			return err
		}
		if open {
			return cmds.Read(dok, device.Uint32Bytes(verdicts))
		}
		return cmds.Read(dtags, device.Uint32Bytes(tags))
	})
	if err != nil {
		return err
	}
	result := func(mi int, dst []byte) bool { // message mi's result into dst; false: it does not open
		if open {
			if verdicts[mi] != 1 {
				return false
			}
			copy(dst, data[p.dataOff[mi]:])
			return true
		}
		body := len(dst) - TagSize
		copy(dst, data[p.dataOff[mi]:p.dataOff[mi]+body])
		for w := range 4 {
			binary.LittleEndian.PutUint32(dst[body+4*w:], tags[4*mi+w])
		}
		return true
	}
	if err := engine.Check(ch.Sample(), func(ui int) bool {
		mi, i := place[ui-ch.Lo], j.unit(ui).msg
		if mi < 0 {
			return true // failed in Prepare: no result
		}
		want, werr := gcmOne(&msgs[i], open, make([]byte, len(j.out[i])))
		got := make([]byte, len(j.out[i]))
		defer clear(got)
		defer clear(want)
		ok := result(mi, got)
		return ok == (werr == nil) && (!ok || bytes.Equal(want, got))
	}); err != nil {
		return err
	}
	batch.Parallel(n, 256, func(lo, hi int) {
		for mi := lo; mi < hi; mi++ {
			i := idx[mi]
			if !result(mi, j.out[i]) {
				clear(j.out[i])
				j.fail(i, ErrOpen)
			}
		}
	})
	return nil
}

// devicePiece is a piece of a large message on the device: encrypted (or
// decrypted) in counter mode, with the GHASH of its ciphertext, V =
// Σ X_j·H^(n−j+1) over its n blocks (W = V·H is what finishLarge chains
// into the tag), its input and output as stageIO says. The piece is checked against
// the CPU's before it is written (SetResultCheck: it is the first element
// of its batch).
func (j *gcmJob) devicePiece(ch *engine.Chunk, u gcmUnit) error {
	e := j.e
	off, text, out := j.piece(u)
	n := len(text)
	m := &j.msgs[u.msg]
	k, lm := m.Key, j.large[u.msg]
	host, back, directOut, err := stageIO(ch, out, text)
	if err != nil {
		return err
	}
	part := []Message{{Key: k, Nonce: m.Nonce}}
	p := e.planGHASH(part, []int{0}, j.open, n, 0)
	// this piece's counter blocks start at block off/16
	first := binary.BigEndian.Uint32(lm.j0[12:]) + uint32(off/BlockSize)
	var ctr [4]byte
	binary.BigEndian.PutUint32(ctr[:], first)
	p.messages[11] = binary.LittleEndian.Uint32(ctr[:])
	records := e.keyRecords(p, nil)
	defer clear(records)
	value := make([]uint32, 4)
	err = ch.Run(func(cmds *device.Commands) error {
		buf, err := cmds.Buffer(n, true)
		if err != nil {
			return err
		}
		if err := cmds.Write(buf, host); err != nil {
			return err
		}
		daad, err := cmds.Buffer(16, true)
		if err != nil {
			return err
		}
		t, err := uploadTables(cmds, p, records, p.messages, p.segments, p.levels)
		if err != nil {
			return err
		}
		// gcm_finish runs too, on a zero E(K, J0): its tag is not used.
		small, err := cmds.Buffer(64, true)
		if err != nil {
			return err
		}
		if err := e.launchGCM(cmds, p, t, buf, buf, daad, small, small, small); err != nil {
			return err
		}
		if err := cmds.Read(buf, back); err != nil {
			return err
		}
		return cmds.ReadAt(t.values, 16*int(p.messages[12]), device.Uint32Bytes(value))
	})
	if err != nil {
		return err
	}
	v := fieldElement{uint64(value[0])<<32 | uint64(value[1]), uint64(value[2])<<32 | uint64(value[3])}
	w := v.mul(k.hashPowers[0])
	clear(value)
	if err := engine.Check(ch.Sample(), func(int) bool {
		want := make([]byte, n)
		defer clear(want)
		return gcmPieceCPU(k, &lm.j0, off, want, text, j.open) == w && bytes.Equal(want, back)
	}); err != nil {
		return err
	}
	if !directOut {
		parallelCopy(out, back)
	}
	lm.parts[u.piece] = w
	return nil
}

// finishLarge computes the tags of the large messages from their pieces'
// GHASH values (gcmTag): Seal appends the tag; Open compares it with the
// message's and, when they differ, zeroes the plaintext written and fails
// the element with ErrOpen. The pieces' values are zeroed.
func (j *gcmJob) finishLarge() {
	for i, lm := range j.large {
		if lm.whole {
			continue // the CPU computed it whole: result and error are final
		}
		m := &j.msgs[i]
		k := m.Key
		body := bodyLen(m, j.open, -1)
		powers := &k.hashPowers
		w := fieldElement{}
		for c, part := range lm.parts {
			n := min(j.e.batchBytes, body-c*j.e.batchBytes)
			w = w.mul(power(powers, uint64((n+15)/16))).xor(part)
		}
		clear(lm.parts)
		j.finishTag(i, &lm.j0, w)
	}
}

// finishTag ends message i, whose ciphertext's GHASH value is w (ghashW),
// with its tag (gcmTag): Seal appends it to the result; Open compares it
// with the message's in constant time and, when they differ, zeroes the
// plaintext written and fails the element with ErrOpen.
func (j *gcmJob) finishTag(i int, j0 *[16]byte, w fieldElement) {
	m := &j.msgs[i]
	body := bodyLen(m, j.open, -1)
	tag := gcmTag(m.Key, j0, m.AAD, w, body)
	defer clear(tag[:])
	out := j.out[i]
	if !j.open {
		copy(out[body:], tag[:])
		return
	}
	if subtle.ConstantTimeCompare(tag[:], m.Data[body:]) != 1 {
		clear(out)
		j.fail(i, ErrOpen)
	}
}

// stageCost is an upper bound on the staging bytes a message takes in a
// batch of whole messages: data, AAD, descriptor, key record, tag,
// verdict, segment map and reduction units.
func (e *Engine) stageCost(m *Message, open bool) int {
	body := bodyLen(m, open, -1)
	blocks := (len(m.AAD)+15)/16 + (body+15)/16 + 1
	segs := blocks>>e.segLog + 1
	return align16(body) + align16(len(m.AAD)) + 64 + 4*(keyRecordLevels+4*9) + 16 + 4 + 4*segs + 16*(segs/8+2)
}
