package aes

import (
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"fmt"

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
}

// Seal encrypts and authenticates each message (AES-GCM). The result of
// element i is its ciphertext followed by the tag, or nil with a reason in
// a *batch.Error when the element is invalid (no key, empty nonce, ...).
func (e *Engine) Seal(msgs []Message) ([][]byte, error) { return e.gcm(msgs, false) }

// Open checks and decrypts each message. The result of element i is its
// plaintext, or nil with a reason in a *batch.Error: ErrOpen when the tag
// does not match (no plaintext is released).
func (e *Engine) Open(msgs []Message) ([][]byte, error) { return e.gcm(msgs, true) }

// gcmGroupLog is log2 of the values one gcm_reduce work-item combines.
const gcmGroupLog = 4

// gcmPlan is a GCM batch laid out for the kernels (kernels/aes.cl).
type gcmPlan struct {
	open     bool
	index    []int // element of each planned message
	keys     []*Key
	keyWords int
	slots    int      // powers per key record
	messages []uint32 // 16 words per message
	segments []uint32 // the message of each segment
	levels   [][]uint32
	values   int // field elements of all levels
	dataSize int
	aadSize  int
	dataOff  []int
	aadOff   []int
}

func align16(n int) int { return (n + 15) &^ 15 }

// checkMessage validates element m.
// bodyLen is the length of the plaintext or ciphertext without the tag;
// device is the length of a device-resident message (−1 for one in Data).
func checkMessage(m *Message, open bool, device int) error {
	if err := m.Key.live(); err != nil {
		return err
	}
	if len(m.Nonce) == 0 {
		return errors.New("aes: GCM nonce of 0 bytes")
	}
	n := device
	if n < 0 {
		n = len(m.Data)
		if open {
			if n < TagSize {
				return fmt.Errorf("aes: GCM ciphertext of %d bytes is shorter than the tag", n)
			}
			n -= TagSize
		}
	}
	if uint64(n) > MaxMessage {
		return fmt.Errorf("aes: GCM message of %d bytes: at most %d", n, uint64(MaxMessage))
	}
	return nil
}

// plan lays out msgs; deviceLen ≥ 0 is the length of the one message of a
// device-resident call (−1: the messages' Data).
func (e *Engine) plan(msgs []Message, errs []error, open bool, deviceLen int) *gcmPlan {
	p := &gcmPlan{open: open}
	keyIndex := map[*Key]int{}
	seg := 1 << e.segLog
	type level struct{ first, count int }
	var cur []level
	for i := range msgs {
		m := &msgs[i]
		if errs[i] = checkMessage(m, open, deviceLen); errs[i] != nil {
			continue
		}
		ki, ok := keyIndex[m.Key]
		if !ok {
			ki = len(p.keys)
			keyIndex[m.Key] = ki
			p.keys = append(p.keys, m.Key)
		}
		n := deviceLen
		if n < 0 {
			n = len(m.Data)
			if open {
				n -= TagSize
			}
		}
		blocks := (len(m.AAD)+15)/16 + (n+15)/16 + 1
		count := (blocks + seg - 1) / seg
		j0 := counterBlock(m.Key.hashPowers[0], m.Nonce)
		d := [16]uint32{uint32(ki), uint32(p.dataSize), uint32(n), uint32(p.aadSize), uint32(len(m.AAD)),
			uint32(len(p.segments)), uint32(count), uint32(blocks),
			binary.LittleEndian.Uint32(j0[:]), binary.LittleEndian.Uint32(j0[4:]),
			binary.LittleEndian.Uint32(j0[8:]), binary.LittleEndian.Uint32(j0[12:])}
		mi := len(p.index)
		p.messages = append(p.messages, d[:]...)
		p.index = append(p.index, i)
		p.dataOff = append(p.dataOff, p.dataSize)
		p.aadOff = append(p.aadOff, p.aadSize)
		p.dataSize += align16(n)
		p.aadSize += align16(len(m.AAD))
		cur = append(cur, level{len(p.segments), count})
		for range count {
			p.segments = append(p.segments, uint32(mi))
		}
	}
	p.values = len(p.segments)
	const group = 1 << gcmGroupLog
	for {
		var units []uint32
		for mi := range cur {
			c := &cur[mi]
			if c.count == 1 {
				continue
			}
			nu := (c.count + group - 1) / group
			in, first := c.first, p.values
			for j := range nu {
				k := group
				if j == 0 {
					k = c.count - (nu-1)*group
				}
				units = append(units, uint32(in), uint32(k), p.messages[16*mi], uint32(p.values))
				in += k
				p.values++
			}
			*c = level{first, nu}
		}
		if units == nil {
			break
		}
		p.levels = append(p.levels, units)
	}
	for mi := range cur {
		p.messages[16*mi+12] = uint32(cur[mi].first)
	}
	p.slots = 1 + len(p.levels)
	p.keyWords = 64 + 4*p.slots
	return p
}

// keyRecords are the schedules and hash-key powers of the plan's keys:
// slot 0 is H, slot l is H^(segment·16^(l−1)), the power level l combines
// with.
func (e *Engine) keyRecords(p *gcmPlan) []uint32 {
	out := make([]uint32, len(p.keys)*p.keyWords)
	for i, k := range p.keys {
		r := out[i*p.keyWords:]
		k.mu.Lock()
		copy(r, k.enc[:])
		r[60] = uint32(k.rounds)
		for s := 0; s < p.slots; s++ {
			exp := 0
			if s > 0 {
				exp = int(e.segLog) + gcmGroupLog*(s-1)
			}
			w := k.hashPowers[exp].words()
			copy(r[64+4*s:], w[:])
		}
		k.mu.Unlock()
	}
	return out
}

func (e *Engine) gcm(msgs []Message, open bool) ([][]byte, error) {
	errs := make([]error, len(msgs))
	p := e.plan(msgs, errs, open, -1)
	out := make([][]byte, len(msgs))
	if len(p.index) > 0 {
		if err := e.gcmDevice(p, msgs, out, errs); err != nil {
			if errors.Is(err, ErrKeyDestroyed) {
				return nil, err
			}
			e.fellBack(err)
			e.gcmCPU(p, msgs, out, errs)
		}
	}
	return out, batch.Collect(errs)
}

// gcmCPU computes the planned messages with crypto/cipher's GCM.
func (e *Engine) gcmCPU(p *gcmPlan, msgs []Message, out [][]byte, errs []error) {
	batch.Parallel(len(p.index), 64, func(lo, hi int) {
		for _, i := range p.index[lo:hi] {
			m := &msgs[i]
			block := m.Key.cipherBlock()
			if block == nil {
				errs[i] = ErrKeyDestroyed
				continue
			}
			aead, err := cipher.NewGCMWithNonceSize(block, len(m.Nonce))
			if err != nil {
				errs[i] = err
				continue
			}
			if p.open {
				if out[i], err = aead.Open(nil, m.Nonce, m.Data, m.AAD); err != nil {
					out[i], errs[i] = nil, ErrOpen
				}
			} else {
				out[i] = aead.Seal(nil, m.Nonce, m.Data, m.AAD)
			}
		}
	})
}

// gcmDevice runs the plan on the device: uploads, gcm_segments, one
// gcm_reduce per level, gcm_finish, read-back. Every device buffer is
// leased as secret and zeroed before reuse.
func (e *Engine) gcmDevice(p *gcmPlan, msgs []Message, out [][]byte, errs []error) error {
	if err := e.fail(); err != nil {
		return err
	}
	n := len(p.index)
	data := make([]byte, max(p.dataSize, 16))
	aad := make([]byte, max(p.aadSize, 16))
	tags := make([]uint32, 4*n)
	batch.Parallel(n, 256, func(lo, hi int) {
		for mi := lo; mi < hi; mi++ {
			m := &msgs[p.index[mi]]
			body := m.Data
			if p.open {
				body = m.Data[:len(m.Data)-TagSize]
				tag := m.Data[len(body):]
				for w := range 4 {
					tags[4*mi+w] = binary.LittleEndian.Uint32(tag[4*w:])
				}
			}
			copy(data[p.dataOff[mi]:], body)
			copy(aad[p.aadOff[mi]:], m.AAD)
		}
	})
	defer clear(data)

	lease := e.pool.Lease(nil)
	var l launches
	err := func() error {
		din, err := lease.Buffer(len(data), true)
		if err != nil {
			return err
		}
		if err := din.Write(0, data); err != nil {
			return err
		}
		dout, err := lease.Buffer(len(data), true)
		if err != nil {
			return err
		}
		daad, err := lease.Buffer(len(aad), true)
		if err != nil {
			return err
		}
		if err := daad.Write(0, aad); err != nil {
			return err
		}
		if err := e.runGCM(lease, &l, p, din, dout, daad, tags); err != nil {
			return err
		}
		return dout.Read(0, data)
	}()
	if err := e.finishDevice(lease, l, err); err != nil {
		return err
	}

	total := 0
	for mi := range n {
		m := &msgs[p.index[mi]]
		total += len(m.Data)
		if !p.open {
			total += TagSize
		}
	}
	backing := make([]byte, total)
	offs := make([]int, n+1)
	for mi := range n {
		size := len(msgs[p.index[mi]].Data)
		if p.open {
			size -= TagSize
		} else {
			size += TagSize
		}
		offs[mi+1] = offs[mi] + size
	}
	batch.Parallel(n, 256, func(lo, hi int) {
		for mi := lo; mi < hi; mi++ {
			i := p.index[mi]
			dst := backing[offs[mi]:offs[mi+1]:offs[mi+1]]
			if p.open {
				if tags[mi] != 1 {
					errs[i] = ErrOpen
					continue
				}
				copy(dst, data[p.dataOff[mi]:])
			} else {
				body := len(dst) - TagSize
				copy(dst, data[p.dataOff[mi]:p.dataOff[mi]+body])
				for w := range 4 {
					binary.LittleEndian.PutUint32(dst[body+4*w:], tags[4*mi+w])
				}
			}
			out[i] = dst
		}
	})
	return nil
}

// smallGlobal is the launch size of the table-free GCM kernels (work-groups
// of 64).
func (e *Engine) smallGlobal(work int) int {
	return max((work+63)/64, 1) * 64
}

// runGCM uploads the plan, runs the kernels on din (data) and daad into
// dout, and reads back the tags (seal) or the verdicts (open: tags[m] = 1
// when message m's tag matched) into tags, which holds the expected tags
// on entry for open. The launches are added to l.
func (e *Engine) runGCM(lease *device.Lease, l *launches, p *gcmPlan, din, dout, daad *device.Buffer, tags []uint32) error {
	n := len(p.index)
	keys, err := lease.Upload(e.keyRecords(p), true)
	if err != nil {
		return err
	}
	dmsgs, err := lease.Upload(p.messages, true)
	if err != nil {
		return err
	}
	dsegs, err := lease.Upload(p.segments, true)
	if err != nil {
		return err
	}
	dvalues, err := lease.Buffer(16*p.values, true)
	if err != nil {
		return err
	}
	dekj0, err := lease.Buffer(16*n, true)
	if err != nil {
		return err
	}
	dtags, err := lease.Upload(tags, true)
	if err != nil {
		return err
	}
	dok, err := lease.Buffer(4*n, true)
	if err != nil {
		return err
	}
	seg, err := e.prog.Kernel("gcm_segments")
	if err != nil {
		return err
	}
	decrypt := uint32(0)
	if p.open {
		decrypt = 1
	}
	if err := l.add(seg.Launch(e.globalSize(len(p.segments)), e.group, device.Local(e.tableBytes(false)), e.tables,
		keys, uint32(p.keyWords), dmsgs, dsegs, din, dout, daad, dvalues, dekj0, uint32(len(p.segments)), decrypt)); err != nil {
		return err
	}
	red, err := e.prog.Kernel("gcm_reduce")
	if err != nil {
		return err
	}
	for lv, units := range p.levels {
		du, err := lease.Upload(units, false)
		if err != nil {
			return err
		}
		count := len(units) / 4
		if err := l.add(red.Launch(e.smallGlobal(count), 64, du, keys, uint32(p.keyWords), uint32(lv+1), dvalues, uint32(count))); err != nil {
			return err
		}
	}
	fin, err := e.prog.Kernel("gcm_finish")
	if err != nil {
		return err
	}
	if err := l.add(fin.Launch(e.smallGlobal(n), 64, dmsgs, dvalues, dekj0, dtags, dok, uint32(n), decrypt)); err != nil {
		return err
	}
	if p.open {
		return dok.Read(0, device.Uint32Bytes(tags[:n]))
	}
	return dtags.Read(0, device.Uint32Bytes(tags))
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
	errs := make([]error, 1)
	p := e.plan(msgs, errs, open, n)
	if errs[0] != nil {
		return nil, errs[0]
	}
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
