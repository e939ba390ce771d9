package aes

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// smallGlobal is the launch size of the table-free GCM kernels (work-groups
// of 64).
func (e *Engine) smallGlobal(work int) int {
	return max((work+63)/64, 1) * 64
}

// gcmTables are a plan's tables on the device: key records, descriptors,
// the segment map, the reduction units of each level and the values they
// combine.
type gcmTables struct {
	keys, descs, segs, values *device.Buffer
	units                     []*device.Buffer
}

// uploadTables uploads the tables of plan p among cmds: records (the key
// records: secret), descs (its descriptors), segments (its segment map,
// one entry for a single message) and units (one list per reduction
// level), and a values buffer.
func uploadTables(cmds *device.Commands, p *gcmPlan, records, descs, segments []uint32, units [][]uint32) (*gcmTables, error) {
	t := &gcmTables{units: make([]*device.Buffer, len(units))}
	var err error
	if t.keys, err = cmds.Upload(records, true); err != nil {
		return nil, err
	}
	if t.descs, err = cmds.Upload(descs, true); err != nil {
		return nil, err
	}
	if t.segs, err = cmds.Upload(segments, false); err != nil {
		return nil, err
	}
	for lv, u := range units {
		if t.units[lv], err = cmds.Upload(u, false); err != nil {
			return nil, err
		}
	}
	if t.values, err = cmds.Buffer(16*p.values, true); err != nil {
		return nil, err
	}
	return t, nil
}

// gcmKernel is the kernel of plan p's segments: the one with the number
// of rounds fixed when every key of p has that size (no branch in the
// rounds, and AES-128's schedule in 44 registers instead of 60), else the
// one that reads it from each key record.
func gcmKernel(p *gcmPlan) string {
	r := p.keys[0].rounds
	for _, k := range p.keys[1:] {
		if k.rounds != r {
			return "gcm_segments"
		}
	}
	return "gcm_segments_r" + strconv.Itoa(r)
}

// launchGCM enqueues the GCM kernels of plan p among cmds: gcm_segments,
// which encrypts (or decrypts) and hashes every segment in one pass over
// the data (dout may be din) and writes each message's E(K, J0) into
// ekj0, then one reduction per level and gcm_finish.
func (e *Engine) launchGCM(cmds *device.Commands, p *gcmPlan, t *gcmTables, din, dout, daad, ekj0, tags, ok *device.Buffer) error {
	keys, descs, segs, values := t.keys, t.descs, t.segs, t.values
	n := len(p.index)
	open := uint32(0)
	if p.open {
		open = 1
	}
	if err := e.launchTables(cmds, e.prog, gcmKernel(p), p.nsegs, false,
		keys, uint32(p.keyWords), descs, uint32(n), segs, din, dout, daad, values, ekj0, uint32(p.nsegs), open); err != nil {
		return err
	}
	launch := func(name string, global, local int, args ...any) error {
		kern, err := e.prog.Kernel(name)
		if err != nil {
			return err
		}
		return cmds.Launch(kern, global, local, args...)
	}
	for lv, u := range p.levels {
		count := len(u) / 4
		if err := launch("gcm_reduce", e.smallGlobal(count), 64, t.units[lv], keys, uint32(p.keyWords), uint32(lv+1), values, uint32(count)); err != nil {
			return err
		}
	}
	for lv, r := range p.single {
		nu := (r.count + 1<<gcmGroupLog - 1) >> gcmGroupLog
		if err := launch("gcm_reduce_one", e.smallGlobal(nu), 64, keys, uint32(lv+1), values,
			uint32(r.in), uint32(r.count), uint32(r.out)); err != nil {
			return err
		}
	}
	return launch("gcm_finish", e.smallGlobal(n), 64, descs, values, ekj0, tags, ok, uint32(n), open)
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

// gcmResident is SealDevice (tag nil) and OpenDevice: one message on the
// device, its plan's tables uploaded, the tag (or the verdict) read back.
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
	records := e.keyRecords(p, nil)
	defer clear(records)
	enqueue := func(cmds *device.Commands) error {
		daad, err := cmds.Buffer(max(len(aad), 16), true)
		if err != nil {
			return err
		}
		if len(aad) > 0 {
			if err := cmds.Write(daad, aad); err != nil {
				return err
			}
		}
		t, err := uploadTables(cmds, p, records, p.messages, p.segments, p.levels)
		if err != nil {
			return err
		}
		dekj0, err := cmds.Buffer(16, true)
		if err != nil {
			return err
		}
		dtags, err := cmds.Upload(tags, true)
		if err != nil {
			return err
		}
		ok, err := cmds.Buffer(4, true)
		if err != nil {
			return err
		}
		if err := e.launchGCM(cmds, p, t, src, dst, daad, dekj0, dtags, ok); err != nil {
			return err
		}
		if open {
			return cmds.Read(ok, device.Uint32Bytes(tags[:1]))
		}
		return cmds.Read(dtags, device.Uint32Bytes(tags))
	}
	err := e.resident(func(ch *engine.Chunk) error {
		if err := ch.Run(enqueue); err != nil {
			return err
		}
		if open && tags[0] != 1 && n > 0 {
			return dst.Fill([]byte{0}, 0, n) // no plaintext released
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if open && tags[0] != 1 {
		return nil, ErrOpen
	}
	return tags, nil
}
