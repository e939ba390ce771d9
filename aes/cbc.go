package aes

import (
	"crypto/cipher"
	"encoding/binary"
	"fmt"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
)

// CBCMessage is one element of a CBC batch: raw CBC, without padding, as
// crypto/cipher's CBC modes do it.
type CBCMessage struct {
	Key  *Key
	IV   []byte // 16 bytes
	Data []byte // plaintext or ciphertext, a multiple of 16 bytes (possibly empty)
}

// EncryptCBC encrypts each message in CBC mode under its own key and IV.
// The result of element i is its ciphertext (empty for empty data), or
// nil with a reason in a *batch.Error when the element is invalid: no key
// (ErrNilKey), a destroyed key (ErrKeyDestroyed), an IV that is not 16
// bytes, data that is not a whole number of blocks.
//
// On the device each message is one work-item: CBC encryption is
// sequential, so a batch needs many messages to be fast.
func (e *Engine) EncryptCBC(msgs []CBCMessage) ([][]byte, error) { return e.cbc(msgs, false) }

// DecryptCBC decrypts each message in CBC mode; see EncryptCBC. Padding,
// if any, is the caller's to check and remove. On the device every block
// is decrypted on its own (P_i = D(C_i) ⊕ C_{i−1}), so one long message
// is as fast as many short ones.
func (e *Engine) DecryptCBC(msgs []CBCMessage) ([][]byte, error) { return e.cbc(msgs, true) }

func checkCBC(m *CBCMessage) error {
	if err := m.Key.live(); err != nil {
		return err
	}
	if len(m.IV) != BlockSize {
		return fmt.Errorf("aes: CBC IV of %d bytes, want 16", len(m.IV))
	}
	if len(m.Data)%BlockSize != 0 {
		return fmt.Errorf("aes: CBC input of %d bytes is not a whole number of blocks", len(m.Data))
	}
	return nil
}

func (e *Engine) cbc(msgs []CBCMessage, decrypt bool) ([][]byte, error) {
	kind := modeCBCEncrypt
	if decrypt {
		kind = modeCBCDecrypt
	}
	return e.modeBatch(kind, len(msgs), func(i int) ([]byte, *Key, *Key, []byte, error) {
		m := &msgs[i]
		if err := checkCBC(m); err != nil {
			return nil, nil, nil, nil, err
		}
		return m.Data, m.Key, nil, m.IV, nil
	})
}

// modeBatch runs a CBC or XTS batch of n elements: element(i) validates
// element i and gives its data, its key (and XTS's tweak key, nil for
// CBC) and its IV or tweak. One result and one error per element.
func (e *Engine) modeBatch(kind modeKind, n int, element func(i int) (data []byte, key, tweakKey *Key, iv []byte, err error)) ([][]byte, error) {
	type elem struct {
		data       []byte
		key, tweak *Key
		iv         []byte
	}
	elems := make([]elem, n)
	errs := make([]error, n)
	total := 0
	for i := range n {
		el := &elems[i]
		if el.data, el.key, el.tweak, el.iv, errs[i] = element(i); errs[i] == nil {
			total += len(el.data)
		}
	}
	out := make([][]byte, n)
	backing := make([]byte, total)
	keys := newModeKeys(kind)
	defer keys.clear()
	var jobs []modeJob
	off := 0
	for i := range elems {
		if errs[i] != nil {
			continue
		}
		el := &elems[i]
		size := len(el.data)
		out[i] = backing[off : off+size : off+size]
		off += size
		if size == 0 {
			continue
		}
		ki, err := keys.add(el.key, el.tweak)
		if err != nil {
			errs[i], out[i] = err, nil
			continue
		}
		j := modeJob{elem: i, key: ki, src: el.data, dst: out[i]}
		copy(j.iv[:], el.iv)
		jobs = append(jobs, j)
	}
	e.runModes(kind, keys, jobs, func(j *modeJob, err error) {
		clear(j.dst)
		errs[j.elem], out[j.elem] = err, nil
	})
	return out, batch.Collect(errs)
}

// The CBC and XTS calls share what follows: a call is a list of jobs
// (messages or data units), run on the device in chunks
// (kernels/aes_modes.cl) or, after a device failure, on the CPU.
//
// The kernels are constant-time for the same reason as the other AES
// kernels: the round tables are replicated per lane in local memory
// (kernels/aes_tables.h), so no bank conflict depends on a key or data
// byte, and every other memory index and every branch depends on
// lengths, positions and message numbers only, which are public. XTS's
// tweak arithmetic is shifts by public amounts and masks, never a branch
// on the tweak. The CPU path is crypto/aes (constant-time where the CPU
// has AES instructions) and, for XTS, xtsCPU on top of it.

// modeKind is the operation of a call.
type modeKind int

const (
	modeCBCEncrypt modeKind = iota
	modeCBCDecrypt
	modeXTSEncrypt
	modeXTSDecrypt
)

func (k modeKind) decrypt() bool { return k == modeCBCDecrypt || k == modeXTSDecrypt }
func (k modeKind) xts() bool     { return k == modeXTSEncrypt || k == modeXTSDecrypt }

// Layout of the kernels' key records and descriptors (kernels/aes_modes.cl).
const (
	modeRecordWords = 64 // schedule (60 words), rounds at 60
	modeDescWords   = 8  // key record, data offset (blocks), size, first run, IV (4 words)
	// modeRun is the number of blocks one work-item of cbc_decrypt and
	// xts_encrypt/xts_decrypt handles: enough to spread the loading of a
	// schedule (and an XTS tweak's jump) over several blocks, few enough
	// that a single message still fills the device.
	modeRun = 8
)

// modeChunkBytes bounds the data of one device launch (a job larger than
// that goes alone), and so the host and device memory of a call.
var modeChunkBytes = 32 << 20

// modeJob is one CBC message or XTS data unit.
type modeJob struct {
	elem int      // the batch element (or sector) it belongs to
	key  int      // index of its key in the call's modeKeys
	iv   [16]byte // CBC IV or XTS tweak
	src  []byte   // CBC: a multiple of 16 bytes; XTS: at least 16
	dst  []byte   // len(src) bytes; may be src itself
}

// modeKeys are the distinct keys of a call with the schedules the kernels
// need, copied once while the keys are checked to be live, so that a key
// destroyed during the call is still used consistently or not at all.
type modeKeys struct {
	kind  modeKind
	index map[[2]*Key]int
	data  []*Key   // CBC key, XTS data key (key1)
	tweak []*Key   // XTS tweak key (key2); nil entries for CBC
	recs  []uint32 // modeRecordWords per key: data's enc or dec schedule
	trecs []uint32 // XTS: tweak's enc schedule
}

func newModeKeys(kind modeKind) *modeKeys {
	return &modeKeys{kind: kind, index: map[[2]*Key]int{}}
}

// add returns the index of the key pair (data, tweak), copying its
// schedules on first sight; ErrKeyDestroyed when one is destroyed.
func (mk *modeKeys) add(data, tweak *Key) (int, error) {
	if i, ok := mk.index[[2]*Key{data, tweak}]; ok {
		return i, nil
	}
	at := len(mk.recs)
	mk.recs = growSecret(mk.recs, modeRecordWords)
	err := data.record(mk.recs[at:], mk.kind.decrypt())
	if err == nil && tweak != nil {
		mk.trecs = growSecret(mk.trecs, modeRecordWords)
		if err = tweak.record(mk.trecs[at:], false); err != nil {
			clear(mk.trecs[at:])
			mk.trecs = mk.trecs[:at]
		}
	}
	if err != nil {
		clear(mk.recs[at:])
		mk.recs = mk.recs[:at]
		return 0, err
	}
	i := len(mk.data)
	mk.index[[2]*Key{data, tweak}] = i
	mk.data = append(mk.data, data)
	mk.tweak = append(mk.tweak, tweak)
	return i, nil
}

// clear zeroes the copied schedules.
func (mk *modeKeys) clear() {
	clear(mk.recs)
	clear(mk.trecs)
}

// growSecret returns s extended by n zero words; when it has to move s
// (which holds schedules) it zeroes the old copy.
func growSecret(s []uint32, n int) []uint32 {
	if len(s)+n <= cap(s) {
		return s[:len(s)+n]
	}
	t := make([]uint32, len(s)+n, 2*(len(s)+n))
	copy(t, s)
	clear(s)
	return t
}

// record writes k's encryption (or decryption) schedule and its number
// of rounds into a key record.
func (k *Key) record(dst []uint32, decrypt bool) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.destroyed {
		return ErrKeyDestroyed
	}
	sched := k.enc[:]
	if decrypt {
		sched = k.dec[:]
	}
	copy(dst, sched[:4*k.rounds+4])
	dst[60] = uint32(k.rounds)
	return nil
}

// runModes computes jobs on the device, or, from the first chunk the
// device fails on, on the CPU (reported through fellBack). A job the CPU
// cannot do (its key destroyed meanwhile) goes to fail.
func (e *Engine) runModes(kind modeKind, keys *modeKeys, jobs []modeJob, fail func(j *modeJob, err error)) {
	if len(jobs) == 0 {
		return
	}
	done, err := e.modesOnDevice(kind, keys, jobs)
	if err == nil {
		return
	}
	e.fellBack(err)
	modesCPU(kind, keys, jobs[done:], fail)
}

// modesOnDevice runs jobs in chunks of about modeChunkBytes and returns
// how many it completed (their results written) before an error.
func (e *Engine) modesOnDevice(kind modeKind, keys *modeKeys, jobs []modeJob) (int, error) {
	if err := e.fail(); err != nil {
		return 0, err
	}
	prog, err := e.modesProgram()
	if err != nil {
		return 0, err
	}
	done := 0
	for done < len(jobs) {
		n, size := 0, 0
		for done+n < len(jobs) {
			s := align16(len(jobs[done+n].src))
			if n > 0 && size+s > modeChunkBytes {
				break
			}
			size += s
			n++
		}
		if err := e.modesChunk(prog, kind, keys, jobs[done:done+n], size); err != nil {
			return done, err
		}
		done += n
	}
	return done, nil
}

// modeRuns is the number of runs (work-items) of a job of n bytes.
func modeRuns(kind modeKind, n int) int {
	if kind == modeCBCEncrypt {
		return 0 // one work-item per message
	}
	return (n/BlockSize + modeRun - 1) / modeRun
}

// modesChunk runs jobs, size bytes once packed, as gcmDevice does: one
// host buffer with every job at a multiple of 16 bytes, one lease whose
// buffers holding keys or data are secret (zeroed before reuse), upload,
// launch, read back, copy out, zero the host copies.
func (e *Engine) modesChunk(prog *device.Program, kind modeKind, keys *modeKeys, jobs []modeJob, size int) error {
	n := len(jobs)
	local := map[int]uint32{}
	var recs, trecs []uint32
	defer func() {
		clear(recs)
		clear(trecs)
	}()
	descs := make([]uint32, modeDescWords*n)
	offs := make([]int, n)
	var runMap []uint32
	runs, off := 0, 0
	for ji := range jobs {
		j := &jobs[ji]
		ki, ok := local[j.key]
		if !ok {
			ki = uint32(len(local))
			local[j.key] = ki
			at := len(recs)
			recs = growSecret(recs, modeRecordWords)
			copy(recs[at:], keys.recs[j.key*modeRecordWords:])
			if kind.xts() {
				trecs = growSecret(trecs, modeRecordWords)
				copy(trecs[at:], keys.trecs[j.key*modeRecordWords:])
			}
		}
		d := descs[modeDescWords*ji:]
		d[0], d[1], d[3] = ki, uint32(off/BlockSize), uint32(runs)
		if kind.xts() {
			d[2] = uint32(len(j.src))
		} else {
			d[2] = uint32(len(j.src) / BlockSize)
		}
		for w := range 4 {
			d[4+w] = binary.LittleEndian.Uint32(j.iv[4*w:])
		}
		r := modeRuns(kind, len(j.src))
		if n > 1 {
			for range r {
				runMap = append(runMap, uint32(ji))
			}
		}
		runs += r
		offs[ji] = off
		off += align16(len(j.src))
	}
	if runMap == nil {
		runMap = []uint32{0} // one job: the kernels read no map
	}
	data := make([]byte, size)
	defer parallelClear(data)
	batch.Parallel(n, 64, func(lo, hi int) {
		for ji := lo; ji < hi; ji++ {
			copy(data[offs[ji]:], jobs[ji].src)
		}
	})

	lease := e.pool.Lease(nil)
	var l launches
	err := func() error {
		dkeys, err := lease.Upload(recs, true)
		if err != nil {
			return err
		}
		ddescs, err := lease.Upload(descs, false)
		if err != nil {
			return err
		}
		druns, err := lease.Upload(runMap, false)
		if err != nil {
			return err
		}
		buf, err := lease.Buffer(size, true)
		if err != nil {
			return err
		}
		if err := buf.Write(0, data); err != nil {
			return err
		}
		q, err := e.dev.Queue()
		if err != nil {
			return err
		}
		launch := func(name string, work int, decrypt bool, args ...any) error {
			kern, err := prog.Kernel(name)
			if err != nil {
				return err
			}
			args = append([]any{device.Local(e.tableBytes(decrypt)), e.tables}, args...)
			return l.add(q.Launch(kern, e.globalSize(work), e.group, args...))
		}
		out := buf
		switch kind {
		case modeCBCEncrypt:
			err = launch("cbc_encrypt", n, false, dkeys, ddescs, uint32(n), buf)
		case modeCBCDecrypt:
			if out, err = lease.Buffer(size, true); err != nil {
				return err
			}
			err = launch("cbc_decrypt", runs, true, dkeys, ddescs, uint32(n), druns, uint32(runs), uint32(modeRun), buf, out)
		default:
			var dtkeys, tweaks *device.Buffer
			if dtkeys, err = lease.Upload(trecs, true); err != nil {
				return err
			}
			if tweaks, err = lease.Buffer(BlockSize*n, true); err != nil {
				return err
			}
			if err = launch("xts_tweak", n, false, dtkeys, ddescs, uint32(n), tweaks); err != nil {
				return err
			}
			name := "xts_encrypt"
			if kind == modeXTSDecrypt {
				name = "xts_decrypt"
			}
			err = launch(name, runs, kind.decrypt(), dkeys, ddescs, uint32(n), druns, uint32(runs), uint32(modeRun), tweaks, buf)
		}
		if err != nil {
			return err
		}
		return out.Read(0, data)
	}()
	if err := e.finishDevice(lease, l, err); err != nil {
		return err
	}
	batch.Parallel(n, 64, func(lo, hi int) {
		for ji := lo; ji < hi; ji++ {
			j := &jobs[ji]
			copy(j.dst[:len(j.src)], data[offs[ji]:])
		}
	})
	return nil
}

// modesCPU computes jobs with crypto/aes: crypto/cipher's CBC, or xtsCPU.
func modesCPU(kind modeKind, keys *modeKeys, jobs []modeJob, fail func(j *modeJob, err error)) {
	batch.Parallel(len(jobs), 16, func(lo, hi int) {
		for ji := lo; ji < hi; ji++ {
			j := &jobs[ji]
			block := keys.data[j.key].cipherBlock()
			var tweak cipher.Block
			if kind.xts() {
				tweak = keys.tweak[j.key].cipherBlock()
			}
			if block == nil || (kind.xts() && tweak == nil) {
				fail(j, ErrKeyDestroyed)
				continue
			}
			switch kind {
			case modeCBCEncrypt:
				cipher.NewCBCEncrypter(block, j.iv[:]).CryptBlocks(j.dst[:len(j.src)], j.src)
			case modeCBCDecrypt:
				cipher.NewCBCDecrypter(block, j.iv[:]).CryptBlocks(j.dst[:len(j.src)], j.src)
			default:
				xtsCPU(block, tweak, &j.iv, j.dst, j.src, kind.decrypt())
			}
		}
	})
}
