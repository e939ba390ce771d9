package aes

import (
	"bytes"
	"crypto/subtle"
	"encoding/binary"
	"math/bits"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// gcm runs a Seal or Open call through the engine's core: the valid
// messages as the elements of a job (gcmJob), then the tags of the
// messages larger than a batch, which the job computes in pieces.
func (e *Engine) gcm(msgs []Message, open bool) ([][]byte, error) {
	errs := make([]error, len(msgs))
	valid := validate(msgs, errs, open, -1)
	defer releaseKeys(msgs, valid)
	res := newResults(msgs, valid, open)
	if len(valid) == 0 {
		return res.out, batch.Collect(errs)
	}
	j := e.newGCMJob(msgs, valid, open, res, errs)
	op := "GCM seal"
	if open {
		op = "GCM open"
	}
	plan := engine.Plan{Op: op, Size: j.sizeClass(), N: len(j.units), Cut: j.cut, Depth: e.depth}
	if err := e.core.Run(plan, j); err != nil {
		return nil, err
	}
	j.finishLarge()
	return res.out, batch.Collect(errs)
}

// gcmJob is one Seal or Open call: its elements are units, each a whole
// message or, for a message larger than a batch (Config.StageBytes), a
// piece of one, whose GHASH values the host chains into the tag once all
// are done (finishLarge).
type gcmJob struct {
	e     *Engine
	msgs  []Message
	open  bool
	res   *results
	errs  []error
	units []gcmUnit
	large map[int]*largeMessage // by message
}

// gcmUnit is a whole message (piece < 0) or piece piece of a large one,
// its bytes from piece·batchBytes.
type gcmUnit struct {
	msg, piece int
	cost       int // a whole message's staging bytes (stageCost)
}

// largeMessage is what the pieces of a large message leave for its tag:
// the counter block and each piece's GHASH value V of its ciphertext; or,
// when the CPU computed the message whole (whole), nothing: its result and
// error are final.
type largeMessage struct {
	j0    [16]byte
	parts []fieldElement
	whole bool
}

func (e *Engine) newGCMJob(msgs []Message, valid []int, open bool, res *results, errs []error) *gcmJob {
	j := &gcmJob{e: e, msgs: msgs, open: open, res: res, errs: errs, units: make([]gcmUnit, 0, len(valid))}
	for _, i := range valid {
		m := &msgs[i]
		if c := e.stageCost(m, open); c <= e.batchBytes {
			j.units = append(j.units, gcmUnit{msg: i, piece: -1, cost: c})
			continue
		}
		body := bodyLen(m, open, -1)
		pieces := (body + e.batchBytes - 1) / e.batchBytes
		if j.large == nil {
			j.large = map[int]*largeMessage{}
		}
		j.large[i] = &largeMessage{j0: counterBlock(m.Key.hashPowers[0], m.Nonce), parts: make([]fieldElement, pieces)}
		for c := range pieces {
			j.units = append(j.units, gcmUnit{msg: i, piece: c})
		}
	}
	return j
}

// sizeClass is the size class of the call's units (their mean length in
// bytes, log2): the measured times that route calls are kept per class.
func (j *gcmJob) sizeClass() int {
	total := 0
	for _, u := range j.units {
		if u.piece >= 0 {
			total += j.e.batchBytes
		} else {
			total += len(j.msgs[u.msg].Data)
		}
	}
	return bits.Len(uint(total / len(j.units)))
}

// cut is the end of the batch from unit lo: whole messages while their
// staging fits a batch, or one piece alone.
func (j *gcmJob) cut(lo, hi int) int {
	if j.units[lo].piece >= 0 {
		return lo + 1
	}
	used, end := 0, lo
	for end < hi && j.units[end].piece < 0 && (end == lo || used+j.units[end].cost <= j.e.batchBytes) {
		used += j.units[end].cost
		end++
	}
	return end
}

// Device implements engine.Job.
func (j *gcmJob) Device(ch *engine.Chunk) error {
	if u := j.units[ch.Lo]; u.piece >= 0 {
		return j.devicePiece(ch, u)
	}
	return j.deviceMessages(ch)
}

// CPU implements engine.Job: whole messages with crypto/cipher's GCM
// (gcmOne), a large message whose pieces are all in [lo, hi) too (its
// first piece computes it, the others nothing), and the pieces of one
// whose other pieces the device computed with crypto/aes in counter mode
// and the host's GHASH (gcmChunkCPU).
func (j *gcmJob) CPU(lo, hi int) {
	for k := lo; k < hi; k++ { // the large messages whose every piece is here
		if u := j.units[k]; u.piece == 0 {
			if lm := j.large[u.msg]; k+len(lm.parts) <= hi {
				lm.whole = true
			}
		}
	}
	batch.Parallel(hi-lo, 1, func(a, b int) {
		for _, u := range j.units[lo+a : lo+b] {
			switch lm := j.large[u.msg]; {
			case u.piece < 0 || (u.piece == 0 && lm.whole):
				j.res.out[u.msg], j.errs[u.msg] = gcmOne(&j.msgs[u.msg], j.open, j.res.out[u.msg])
			case !lm.whole:
				off, text, out := j.piece(u)
				m := &j.msgs[u.msg]
				lm.parts[u.piece] = gcmChunkCPU(m.Key.cipherBlock(), m.Key.hashPowers[0], lm.j0, off, out, text, j.open)
			} // else a later piece of a message its first piece computes whole
		}
	})
}

// piece is the byte offset of piece u in its message, its input and its
// output.
func (j *gcmJob) piece(u gcmUnit) (off int, text, out []byte) {
	m := &j.msgs[u.msg]
	body := bodyLen(m, j.open, -1)
	off = u.piece * j.e.batchBytes
	end := min(off+j.e.batchBytes, body)
	return off, m.Data[off:end], j.res.out[u.msg][off:end]
}

// deviceMessages is a batch of whole messages on the device: packed into
// staging memory as the plan lays them out, copied in, computed (counter
// mode and GHASH in one pass: launchGCM), copied back; the sampled results are checked
// against crypto/cipher's before any result is written.
func (j *gcmJob) deviceMessages(ch *engine.Chunk) error {
	e, msgs, open := j.e, j.msgs, j.open
	idx := make([]int, ch.Hi-ch.Lo)
	for k, u := range j.units[ch.Lo:ch.Hi] {
		idx[k] = u.msg
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
		mi, i := ui-ch.Lo, j.units[ui].msg
		want, werr := gcmOne(&msgs[i], open, make([]byte, len(j.res.out[i])))
		got := make([]byte, len(j.res.out[i]))
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
			if !result(mi, j.res.out[i]) {
				j.errs[i] = ErrOpen
				clear(j.res.out[i])
				j.res.out[i] = nil
			}
		}
	})
	return nil
}

// devicePiece is a piece of a large message on the device: encrypted (or
// decrypted) in counter mode, with the GHASH of its ciphertext, V =
// Σ X_j·H^(n−j+1) over its n blocks, which finishLarge chains into the
// tag, its input and output as stageIO says. The piece is checked against
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
	if err := engine.Check(ch.Sample(), func(int) bool {
		want := make([]byte, n)
		defer clear(want)
		wv := gcmChunkCPU(k.cipherBlock(), k.hashPowers[0], lm.j0, off, want, text, j.open)
		return wv == v && bytes.Equal(want, back)
	}); err != nil {
		return err
	}
	if !directOut {
		parallelCopy(out, back)
	}
	lm.parts[u.piece] = v
	return nil
}

// finishLarge computes the tags of the large messages from their pieces'
// GHASH values, Y ← Y·Hⁿ ⊕ V from the GHASH of the AAD, ending with the
// lengths block and E(K, J0), all in constant time (ghash.go): Seal
// appends the tag; Open compares it with the message's and, when they
// differ, zeroes the plaintext written and fails the element with ErrOpen.
func (j *gcmJob) finishLarge() {
	for i, lm := range j.large {
		if lm.whole {
			continue // the CPU computed it whole: result and error are final
		}
		m := &j.msgs[i]
		body := bodyLen(m, j.open, -1)
		out := j.res.out[i]
		h, powers := m.Key.hashPowers[0], &m.Key.hashPowers
		y := ghash(h, m.AAD)
		for c, v := range lm.parts {
			n := min(j.e.batchBytes, body-c*j.e.batchBytes)
			y = y.mul(power(powers, uint64((n+15)/16))).xor(v)
		}
		y = y.xor(fieldElement{uint64(len(m.AAD)) * 8, uint64(body) * 8}).mul(h)
		var tag, ekj0 [16]byte
		m.Key.cipherBlock().Encrypt(ekj0[:], lm.j0[:]) // not nil: the call holds the key
		y.bytes(tag[:])
		for b := range tag {
			tag[b] ^= ekj0[b]
		}
		if !j.open {
			copy(out[body:], tag[:])
			continue
		}
		if subtle.ConstantTimeCompare(tag[:], m.Data[body:]) != 1 {
			clear(out)
			j.errs[i], j.res.out[i] = ErrOpen, nil
		}
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
