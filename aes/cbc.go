package aes

import (
	"bytes"
	"crypto/cipher"
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// CBCMessage is one element of a CBC batch: raw CBC, without padding, as
// crypto/cipher's CBC modes do it.
type CBCMessage struct {
	Key  *Key
	IV   []byte // 16 bytes
	Data []byte // plaintext or ciphertext, a multiple of 16 bytes (possibly empty)
	// Out, when its capacity holds the result (len(Data) bytes), receives
	// it (the result is then Out[:len(Data)]); otherwise the result is
	// newly allocated. Out may be Data itself (in place) but must not
	// overlap it otherwise.
	Out []byte
}

// EncryptCBC encrypts each message in CBC mode under its own key and IV.
// The result of element i is its ciphertext (empty for empty data; in
// its Out where Out's capacity holds it), or nil with a reason in a
// *batch.Error when the element is invalid: no key (ErrNilKey), a closed
// key (ErrKeyDestroyed), an IV that is not 16 bytes, data that is not a
// whole number of blocks, an Out that overlaps Data other than in place
// (ErrOverlap).
//
// On the device each message is one work-item: CBC encryption is
// sequential, so a batch needs many messages to be fast. A device failure
// in the middle of the call keeps the messages the device finished and
// computes the others on the CPU (reported through OnFallback).
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
	return checkOut(m.Out, m.Data)
}

// checkOut checks a batch element's Out against its Data: ErrOverlap
// where they share memory other than at the same start.
func checkOut(out, data []byte) error {
	if cap(out) > 0 && inexactOverlap(out[:cap(out)], data) {
		return ErrOverlap
	}
	return nil
}

func (e *Engine) cbc(msgs []CBCMessage, decrypt bool) ([][]byte, error) {
	kind := modeCBCEncrypt
	if decrypt {
		kind = modeCBCDecrypt
	}
	return e.modeBatch(kind, len(msgs), func(i int) (modeElement, error) {
		m := &msgs[i]
		if err := checkCBC(m); err != nil {
			return modeElement{}, err
		}
		return modeElement{data: m.Data, out: m.Out, key: m.Key, iv: m.IV}, nil
	})
}

// modeElement is a valid element of a CBC or XTS batch: its data, where
// its result may go (Out), its key (and XTS's tweak key, nil for CBC) and
// its IV or tweak.
type modeElement struct {
	data, out  []byte
	key, tweak *Key
	iv         []byte
}

// fits reports whether the element's result goes into its Out (given,
// and large enough).
func (el *modeElement) fits() bool { return el.out != nil && cap(el.out) >= len(el.data) }

// modeBatch runs a CBC or XTS batch of n elements: element(i) validates
// element i and gives it. One result and one error per element. The call
// holds the keys of the valid elements (Key.acquire) until it returns.
func (e *Engine) modeBatch(kind modeKind, n int, element func(i int) (modeElement, error)) ([][]byte, error) {
	elems := make([]modeElement, n)
	errs := make([]error, n)
	total := 0
	var held []int
	defer func() {
		for _, i := range held {
			releasePair(elems[i].key, elems[i].tweak)
		}
	}()
	for i := range n {
		el := &elems[i]
		if *el, errs[i] = element(i); errs[i] == nil {
			if errs[i] = acquirePair(el.key, el.tweak); errs[i] == nil {
				held = append(held, i)
				if !el.fits() {
					total += len(el.data)
				}
			}
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
		if el.fits() {
			out[i] = el.out[:size]
		} else {
			out[i] = backing[off : off+size : off+size]
			off += size
		}
		if size == 0 {
			continue
		}
		ki, err := keys.add(el.key, el.tweak)
		if err != nil {
			errs[i], out[i] = err, nil
			continue
		}
		// CBC decryption of a long message in pieces that fit a pipeline
		// stage: a piece's IV is the ciphertext block before it.
		piece := size
		if kind == modeCBCDecrypt {
			piece = max(BlockSize, e.modeBatchBytes()&^(BlockSize-1))
		}
		for lo := 0; lo < size; lo += piece {
			hi := min(size, lo+piece)
			j := modeJob{elem: i, key: ki, src: el.data[lo:hi], dst: out[i][lo:hi]}
			if lo == 0 {
				copy(j.iv[:], el.iv)
			} else {
				copy(j.iv[:], el.data[lo-BlockSize:lo])
			}
			jobs = append(jobs, j)
		}
	}
	fail := func(j *modeJob, err error) {
		clear(out[j.elem]) // every piece of the element, nil after its first failure
		errs[j.elem], out[j.elem] = err, nil
	}
	if err := e.runModes(keys, jobs, fail); err != nil {
		return nil, err
	}
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

func (k modeKind) String() string {
	return [...]string{"CBC encrypt", "CBC decrypt", "XTS encrypt", "XTS decrypt"}[k]
}
func (k modeKind) xts() bool { return k == modeXTSEncrypt || k == modeXTSDecrypt }

// Layout of the kernels' descriptors (kernels/aes_modes.cl; the key
// records' is engine.go's).
const (
	modeDescWords = 8 // key record, data offset (blocks), size, first run, IV (4 words)
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

// acquirePair holds key and tweak (nil for CBC) for a call (Key.acquire).
func acquirePair(key, tweak *Key) error {
	if err := key.acquire(); err != nil {
		return err
	}
	if tweak != nil {
		if err := tweak.acquire(); err != nil {
			key.release()
			return err
		}
	}
	return nil
}

// releasePair releases what acquirePair held.
func releasePair(key, tweak *Key) {
	key.release()
	if tweak != nil {
		tweak.release()
	}
}

// modeKeys are the distinct keys of a call with the schedules the kernels
// need, copied once per call. The call holds the keys (acquirePair), so a
// key closed during the call (Key.Close waits) is still used to the
// end, on the device and on the CPU.
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
	if k.closed.Load() {
		return ErrKeyDestroyed
	}
	sched := k.enc[:]
	if decrypt {
		sched = k.dec[:]
	}
	copy(dst, sched[:4*k.rounds+4])
	dst[keyRecordRounds] = uint32(k.rounds)
	return nil
}

// runModes computes jobs through the engine's core (modesJob): on the
// device in batches, a batch the device fails recomputed on the CPU, or on
// the CPU. A job the CPU cannot do (its key destroyed: not while the call
// holds it) goes to fail. Its error is the call's as a whole (a closed
// engine).
func (e *Engine) runModes(keys *modeKeys, jobs []modeJob, fail func(j *modeJob, err error)) error {
	if len(jobs) == 0 {
		return nil
	}
	j := &modesJob{e: e, keys: keys, jobs: jobs, fail: fail}
	total := 0
	for i := range jobs {
		total += len(jobs[i].src)
		j.longest = max(j.longest, len(jobs[i].src))
	}
	j.mean = total / len(jobs)
	plan := engine.Plan{Op: keys.kind.String(), Size: bits.Len(uint(j.mean)), N: len(jobs), Cut: j.cut, Depth: e.depth}
	return e.core.Run(plan, j)
}

// modesJob is the jobs of a CBC or XTS call (of the kind of its keys):
// its elements.
type modesJob struct {
	e    *Engine
	keys *modeKeys
	jobs []modeJob
	fail func(j *modeJob, err error)
	// the mean and the longest length of the jobs
	mean, longest int
}

// modeBatchBytes is the most bytes of one CBC or XTS device batch: a job
// larger goes alone.
func (e *Engine) modeBatchBytes() int { return min(modeChunkBytes, e.batchBytes) }

// cut is the end of the batch from job lo: jobs while their packed bytes
// fit the limit (at least one).
func (j *modesJob) cut(lo, hi int) int {
	size, end := 0, lo
	for end < hi {
		s := align16(len(j.jobs[end].src))
		if end > lo && size+s > j.e.modeBatchBytes() {
			break
		}
		size += s
		end++
	}
	return end
}

// cpuTaskBytes is about the least data of one task on the CPU: fewer
// bytes would cost more in starting the task than they compute.
const cpuTaskBytes = 64 << 10

// cbcPieceBytes is the length of the pieces the CPU cuts a long CBC
// decryption into, so that one message spreads over all cores.
const cbcPieceBytes = 256 << 10

// CPU implements engine.Job: the jobs [lo, hi) with crypto/aes (cryptCPU),
// on all cores in contiguous ranges of at least cpuTaskBytes; a CBC
// decryption longer than cbcPieceBytes in pieces of that length.
func (j *modesJob) CPU(lo, hi int) {
	jobs := j.jobs[lo:hi]
	mean := j.mean
	if j.keys.kind == modeCBCDecrypt && j.longest > cbcPieceBytes {
		jobs = cbcPieces(jobs)
		mean = min(mean, cbcPieceBytes)
	}
	batch.Parallel(len(jobs), max(1, cpuTaskBytes/max(mean, 1)), func(a, b int) {
		for k := a; k < b; k++ {
			job := &jobs[k]
			if err := j.keys.crypt(job, &job.iv, job.dst); err != nil {
				j.fail(job, err)
			}
		}
	})
}

// cbcPieces cuts the CBC decryptions among jobs that are longer than
// cbcPieceBytes into pieces of that length: each piece's IV is the
// ciphertext block before it, copied here, before any piece is decrypted
// (in place, the piece before overwrites it).
func cbcPieces(jobs []modeJob) []modeJob {
	var out []modeJob
	for i := range jobs {
		job := &jobs[i]
		if len(job.src) <= cbcPieceBytes {
			out = append(out, *job)
			continue
		}
		for lo := 0; lo < len(job.src); lo += cbcPieceBytes {
			hi := min(len(job.src), lo+cbcPieceBytes)
			p := modeJob{elem: job.elem, key: job.key, iv: job.iv, src: job.src[lo:hi], dst: job.dst[lo:hi]}
			if lo > 0 {
				copy(p.iv[:], job.src[lo-BlockSize:lo])
			}
			out = append(out, p)
		}
	}
	return out
}

// modeRuns is the number of runs (work-items) of a job of n bytes.
func modeRuns(kind modeKind, n int) int {
	if kind == modeCBCEncrypt {
		return 0 // one work-item per message
	}
	return (n/BlockSize + modeRun - 1) / modeRun
}

// Device implements engine.Job: the jobs of the batch packed into staging
// memory, every job at a multiple of 16 bytes, with their keys' records
// and descriptors; uploaded, computed, read back; the sampled jobs checked
// against crypto/aes, and only then the results copied out. Until then
// the jobs' dst (and src, when it is dst) are untouched.
func (j *modesJob) Device(ch *engine.Chunk) error {
	e, kind := j.e, j.keys.kind
	prog, err := e.modesProgram()
	if err != nil {
		return err
	}
	jobs := j.jobs[ch.Lo:ch.Hi]
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
	runs, size := 0, 0
	for ji := range jobs {
		job := &jobs[ji]
		ki, ok := local[job.key]
		if !ok {
			ki = uint32(len(local))
			local[job.key] = ki
			at := len(recs)
			recs = growSecret(recs, modeRecordWords)
			copy(recs[at:], j.keys.recs[job.key*modeRecordWords:])
			if kind.xts() {
				trecs = growSecret(trecs, modeRecordWords)
				copy(trecs[at:], j.keys.trecs[job.key*modeRecordWords:])
			}
		}
		d := descs[modeDescWords*ji:]
		d[0], d[1], d[3] = ki, uint32(size/BlockSize), uint32(runs)
		if kind.xts() {
			d[2] = uint32(len(job.src))
		} else {
			d[2] = uint32(len(job.src) / BlockSize)
		}
		for w := range 4 {
			d[4+w] = binary.LittleEndian.Uint32(job.iv[4*w:])
		}
		r := modeRuns(kind, len(job.src))
		if n > 1 {
			for range r {
				runMap = append(runMap, uint32(ji))
			}
		}
		runs += r
		offs[ji] = size
		size += align16(len(job.src))
	}
	if runMap == nil {
		runMap = []uint32{0} // one job: the kernels read no map
	}
	data, err := ch.Staging(size)
	if err != nil {
		return err
	}
	eachJob(jobs, func(ji int, job *modeJob) {
		d := data[offs[ji] : offs[ji]+align16(len(job.src))]
		copyJob(d, job.src)
		clear(d[len(job.src):])
	})
	err = ch.Run(func(cmds *device.Commands) error {
		dkeys, err := cmds.Upload(recs, true)
		if err != nil {
			return err
		}
		ddescs, err := cmds.Upload(descs, false)
		if err != nil {
			return err
		}
		druns, err := cmds.Upload(runMap, false)
		if err != nil {
			return err
		}
		buf, err := cmds.Buffer(size, true)
		if err != nil {
			return err
		}
		if err := cmds.Write(buf, data); err != nil {
			return err
		}
		out := buf
		switch kind {
		case modeCBCEncrypt:
			err = e.launchTables(cmds, prog, "cbc_encrypt", n, false, dkeys, ddescs, uint32(n), buf)
		case modeCBCDecrypt:
			if out, err = cmds.Buffer(size, true); err != nil {
				return err
			}
			err = e.launchTables(cmds, prog, "cbc_decrypt", runs, true, dkeys, ddescs, uint32(n), druns, uint32(runs), uint32(modeRun), buf, out)
		default:
			var dtkeys, tweaks *device.Buffer
			if dtkeys, err = cmds.Upload(trecs, true); err != nil {
				return err
			}
			if tweaks, err = cmds.Buffer(BlockSize*n, true); err != nil {
				return err
			}
			if err = e.launchTables(cmds, prog, "xts_tweak", n, false, dtkeys, ddescs, uint32(n), tweaks); err != nil {
				return err
			}
			name := "xts_encrypt"
			if kind == modeXTSDecrypt {
				name = "xts_decrypt"
			}
			err = e.launchTables(cmds, prog, name, runs, kind.decrypt(), dkeys, ddescs, uint32(n), druns, uint32(runs), uint32(modeRun), tweaks, buf)
		}
		if err != nil {
			return err
		}
		return cmds.Read(out, data)
	})
	if err != nil {
		return err
	}
	if err := engine.Check(ch.Sample(), func(i int) bool {
		job, ji := &j.jobs[i], i-ch.Lo
		want := make([]byte, len(job.src))
		defer clear(want)
		iv := job.iv
		if err := j.keys.crypt(job, &iv, want); err != nil {
			return true // the key is gone: nothing to compare (not while the call holds it)
		}
		return bytes.Equal(want, data[offs[ji]:offs[ji]+len(job.src)])
	}); err != nil {
		return err
	}
	eachJob(jobs, func(ji int, job *modeJob) {
		copyJob(job.dst[:len(job.src)], data[offs[ji]:offs[ji]+len(job.src)])
	})
	return nil
}

// eachJob runs f on every job, the jobs spread over the cores.
func eachJob(jobs []modeJob, f func(ji int, j *modeJob)) {
	batch.Parallel(len(jobs), 64, func(lo, hi int) {
		for ji := lo; ji < hi; ji++ {
			f(ji, &jobs[ji])
		}
	})
}

// copyJob copies a job's bytes: on all cores when they are many (a chunk
// may be a single long message).
func copyJob(dst, src []byte) {
	if len(src) >= 1<<20 {
		parallelCopy(dst, src)
		return
	}
	copy(dst, src)
}

// crypt computes job's src into dst with crypto/aes (cryptCPU), from
// the chaining value or tweak iv, which it advances.
func (mk *modeKeys) crypt(job *modeJob, iv *[16]byte, dst []byte) error {
	var tweak *Key
	if mk.kind.xts() {
		tweak = mk.tweak[job.key]
	}
	return cryptCPU(mk.kind, mk.data[job.key], tweak, iv, dst, job.src)
}

// cryptCPU computes src (a CBC message or an XTS data unit, or a piece of
// one) into dst with crypto/aes: crypto/cipher's CBC, or xtsCPU with
// tweakKey. It fails only for a destroyed key.
func cryptCPU(kind modeKind, key, tweakKey *Key, iv *[16]byte, dst, src []byte) error {
	block := key.cipherBlock()
	var tweak cipher.Block
	if kind.xts() {
		tweak = tweakKey.cipherBlock()
	}
	if block == nil || (kind.xts() && tweak == nil) {
		return ErrKeyDestroyed
	}
	switch kind {
	case modeCBCEncrypt:
		cipher.NewCBCEncrypter(block, iv[:]).CryptBlocks(dst[:len(src)], src)
	case modeCBCDecrypt:
		cipher.NewCBCDecrypter(block, iv[:]).CryptBlocks(dst[:len(src)], src)
	default:
		xtsCPU(block, tweak, iv, dst, src, kind.decrypt())
	}
	return nil
}
