package aes

import (
	"encoding/binary"
	"fmt"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// smallGlobal is the launch size of the table-free GCM kernels (work-groups
// of 64).
func (e *Engine) smallGlobal(work int) int {
	return max((work+63)/64, 1) * 64
}

// ghashGroup is the work-group size of gcm_hash (GHASH_GROUP).
const ghashGroup = 256

// hashGlobal is the launch size of gcm_hash: whole groups, at most eight
// per compute unit (the kernel loops).
func (e *Engine) hashGlobal(work int) int {
	groups := min((work+ghashGroup-1)/ghashGroup, 8*e.core.Device().ComputeUnits)
	return max(groups, 1) * ghashGroup
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

// launchGCM enqueues the GCM kernels of plan p among cmds: counter mode
// (gcm_crypt, or aes_ctr for one message, whose E(K, J0) the caller has
// written into ekj0) before gcm_hash to seal, after it to open (the
// ciphertext is hashed, and dout may be din), then one gcm_reduce per
// level and gcm_finish.
func (e *Engine) launchGCM(cmds *device.Commands, p *gcmPlan, t *gcmTables, din, dout, daad, ekj0, tags, ok *device.Buffer) error {
	keys, descs, segs, values := t.keys, t.descs, t.segs, t.values
	n := len(p.index)
	crypt := func() error {
		if n == 1 {
			k := p.keys[0]
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
			return e.launchTables(cmds, e.prog, "aes_ctr", total, false, keys, uint32(k.rounds),
				d[8], d[9], d[10], d[11], uint64(1), uint32(1), din, dout, uint32(blocks), uint32(tail))
		}
		return e.launchTables(cmds, e.prog, "gcm_crypt", p.nsegs, false,
			keys, uint32(p.keyWords), descs, uint32(n), segs, din, dout, ekj0, uint32(p.nsegs))
	}
	launch := func(name string, global, local int, args ...any) error {
		kern, err := e.prog.Kernel(name)
		if err != nil {
			return err
		}
		return cmds.Launch(kern, global, local, args...)
	}
	hash := func(text *device.Buffer) error {
		return launch("gcm_hash", e.hashGlobal(p.nsegs), ghashGroup, keys, uint32(p.keyWords), descs, uint32(n), segs,
			text, daad, values, uint32(p.nsegs))
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
	decrypt := uint32(0)
	if p.open {
		decrypt = 1
	}
	return launch("gcm_finish", e.smallGlobal(n), 64, descs, values, ekj0, tags, ok, uint32(n), decrypt)
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
	clear(out[:])
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
	ekj0, err := singleEKJ0(p)
	if err != nil {
		return nil, err
	}
	defer clear(ekj0)
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
		dekj0, err := cmds.Upload(ekj0, true)
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
	err = e.resident(func(ch *engine.Chunk) error {
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
