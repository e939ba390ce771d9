package aes

import (
	"bytes"
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// BlockSize is the AES block size in bytes.
const BlockSize = 16

// EncryptBlocks encrypts src into dst in ECB mode (each 16-byte block on
// its own): the building block of key derivations, not a mode for
// messages. len(src) must be a multiple of 16; dst must be as long and may
// be src itself.
//
// On the device the data goes through in batches, each written to dst
// once complete. When the device fails, the batches it did not finish
// (whose input is untouched, in place too) are computed on the CPU and the
// failure is reported through OnFallback; the finished ones are kept. The
// same holds for DecryptBlocks and XORKeyStream.
//
// A closed key gives ErrKeyDestroyed, with dst not written. The call
// holds k until it returns: Key.Close waits for it, so a call that found
// k live computes all of src with it. The same holds for the other bulk
// calls and the CBC and XTS calls (for Seal and Open, see Seal).
func (e *Engine) EncryptBlocks(k *Key, dst, src []byte) error {
	return e.blocks(k, dst, src, false)
}

// DecryptBlocks decrypts src into dst in ECB mode; see EncryptBlocks.
func (e *Engine) DecryptBlocks(k *Key, dst, src []byte) error {
	return e.blocks(k, dst, src, true)
}

func checkBuffers(dst, src []byte) error {
	if len(dst) < len(src) {
		return fmt.Errorf("aes: output of %d bytes is shorter than the input (%d)", len(dst), len(src))
	}
	if inexactOverlap(dst[:len(src)], src) {
		return ErrOverlap
	}
	return nil
}

func (e *Engine) blocks(k *Key, dst, src []byte, decrypt bool) error {
	if err := k.acquire(); err != nil {
		return err
	}
	defer k.release()
	if len(src)%BlockSize != 0 {
		return fmt.Errorf("aes: ECB input of %d bytes is not a whole number of blocks", len(src))
	}
	if err := checkBuffers(dst, src); err != nil {
		return err
	}
	op := "ECB encrypt"
	if decrypt {
		op = "ECB decrypt"
	}
	return e.stream(&streamJob{e: e, op: op, k: k, dst: dst, src: src, decrypt: decrypt})
}

// EncryptBlocksDevice encrypts n bytes (a multiple of 16) of src into dst,
// both device buffers of the engine's device, in ECB mode.
func (e *Engine) EncryptBlocksDevice(k *Key, dst, src *device.Buffer, n int) error {
	return e.blocksDevice(k, dst, src, n, false)
}

// DecryptBlocksDevice decrypts n bytes of src into dst in ECB mode.
func (e *Engine) DecryptBlocksDevice(k *Key, dst, src *device.Buffer, n int) error {
	return e.blocksDevice(k, dst, src, n, true)
}

func (e *Engine) blocksDevice(k *Key, dst, src *device.Buffer, n int, decrypt bool) error {
	if err := k.acquire(); err != nil {
		return err
	}
	defer k.release()
	if n%BlockSize != 0 {
		return fmt.Errorf("aes: ECB input of %d bytes is not a whole number of blocks", n)
	}
	if err := checkDeviceBuffers(dst, src, n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	j := &streamJob{e: e, k: k, decrypt: decrypt}
	return e.onDevice(func(cmds *device.Commands) error { return j.enqueue(cmds, src, dst, 0, n) })
}

func checkDeviceBuffers(dst, src *device.Buffer, n int) error {
	if dst == nil || src == nil {
		return errors.New("aes: nil device buffer")
	}
	if n < 0 || n > src.Size() || n > dst.Size() {
		return fmt.Errorf("aes: %d bytes do not fit the buffers (%d and %d bytes)", n, src.Size(), dst.Size())
	}
	if n > maxLaunchBytes {
		return fmt.Errorf("aes: %d bytes in one device call: at most %d", n, maxLaunchBytes)
	}
	return nil
}

// maxLaunchBytes keeps block counts within the kernels' 32-bit indexes.
const maxLaunchBytes = 1 << 36

// counterAt is the CTR counter block iv advanced by blocks, as a 128-bit
// big-endian number.
func counterAt(iv []byte, blocks uint64) []byte {
	ctr := make([]byte, BlockSize)
	hi, lo := binary.BigEndian.Uint64(iv), binary.BigEndian.Uint64(iv[8:])
	lo2, carry := bits.Add64(lo, blocks, 0)
	binary.BigEndian.PutUint64(ctr, hi+carry)
	binary.BigEndian.PutUint64(ctr[8:], lo2)
	return ctr
}

// XORKeyStream encrypts or decrypts src into dst in CTR mode with the
// counter block iv (16 bytes), incremented as a 128-bit big-endian number
// per block, as crypto/cipher.NewCTR does. dst may be src itself. A device
// failure in the middle of the call leaves the batches the device
// finished and computes the others on the CPU (see EncryptBlocks).
func (e *Engine) XORKeyStream(k *Key, iv, dst, src []byte) error {
	if err := k.acquire(); err != nil {
		return err
	}
	defer k.release()
	if len(iv) != BlockSize {
		return fmt.Errorf("aes: CTR counter block of %d bytes, want 16", len(iv))
	}
	if err := checkBuffers(dst, src); err != nil {
		return err
	}
	return e.stream(&streamJob{e: e, op: "CTR", k: k, iv: iv, dst: dst, src: src})
}

// XORKeyStreamDevice is XORKeyStream on n bytes of device buffers of the
// engine's device (dst may be src).
func (e *Engine) XORKeyStreamDevice(k *Key, iv []byte, dst, src *device.Buffer, n int) error {
	if err := k.acquire(); err != nil {
		return err
	}
	defer k.release()
	if len(iv) != BlockSize {
		return fmt.Errorf("aes: CTR counter block of %d bytes, want 16", len(iv))
	}
	if err := checkDeviceBuffers(dst, src, n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	j := &streamJob{e: e, k: k, iv: iv}
	return e.onDevice(func(cmds *device.Commands) error { return j.enqueue(cmds, src, dst, 0, n) })
}

// streamPiece is the element of the bulk calls (ECB, CTR): 64 KiB of the
// data, the last piece shorter (and at most a batch: Config.StageBytes).
const streamPiece = 64 << 10

// streamJob is one bulk call: ECB (iv nil) or CTR over src into dst, in
// pieces of streamPiece bytes.
type streamJob struct {
	e        *Engine
	op       string
	k        *Key // held by the call
	iv       []byte
	dst, src []byte
	decrypt  bool
	piece    int
}

// stream runs j through the engine's core.
func (e *Engine) stream(j *streamJob) error {
	if len(j.src) == 0 {
		return nil
	}
	j.piece = min(streamPiece, e.batchBytes)
	n := (len(j.src) + j.piece - 1) / j.piece
	return e.core.Run(engine.Plan{Op: j.op, Size: 8 * j.k.size, N: n, Chunk: e.batchBytes / j.piece, Depth: e.depth}, j)
}

// span is the byte range of the pieces [lo, hi).
func (j *streamJob) span(lo, hi int) (from, to int) {
	return lo * j.piece, min(hi*j.piece, len(j.src))
}

// stageIO returns where a device batch copies its input src from and its
// results for dst to. When both are pinned memory (device.Pinned: from
// Device.HostAlloc) the device copies from and to them directly, without
// the host copies (directOut); from src alone when dst is src, so that a
// copy that fails half-way does not write over input. Elsewhere both go
// through ch's staging memory, src copied in. Unless directOut, the caller
// copies out into dst once the device has completed and the result check
// passed.
func stageIO(ch *engine.Chunk, dst, src []byte) (in, out []byte, directOut bool, err error) {
	directIn := device.Pinned(src) && device.Pinned(dst)
	if directIn && !inPlace(dst, src) {
		return src, dst, true, nil
	}
	staging, err := ch.Staging(len(src))
	if err != nil {
		return nil, nil, false, err
	}
	if directIn {
		return src, staging, false, nil
	}
	parallelCopy(staging, src)
	return staging, staging, false, nil
}

// Device implements engine.Job: the pieces of the batch through the
// device (its input and output as stageIO says). The result reaches dst
// only once the device has completed (and the result check passed).
func (j *streamJob) Device(ch *engine.Chunk) error {
	from, to := j.span(ch.Lo, ch.Hi)
	n := to - from
	dst := j.dst[from:to]
	in, out, directOut, err := stageIO(ch, dst, j.src[from:to])
	if err != nil {
		return err
	}
	err = ch.Run(func(cmds *device.Commands) error {
		buf, err := cmds.Buffer(n, true)
		if err != nil {
			return err
		}
		if err := cmds.Write(buf, in); err != nil {
			return err
		}
		if err := j.enqueue(cmds, buf, buf, from, n); err != nil {
			return err
		}
		return cmds.Read(buf, out)
	})
	if err != nil {
		return err
	}
	if err := engine.Check(ch.Sample(), func(p int) bool {
		a, b := j.span(p, p+1)
		want := make([]byte, b-a)
		j.compute(want, j.src[a:b], a)
		defer clear(want)
		return bytes.Equal(want, out[a-from:b-from])
	}); err != nil {
		return err
	}
	if !directOut {
		parallelCopy(dst, out)
	}
	return nil
}

// enqueue enqueues the kernel over n bytes of in into out among cmds, in
// and out at byte at of the call (CTR's counter starts there), with the
// key's schedule uploaded into a secret buffer.
func (j *streamJob) enqueue(cmds *device.Commands, in, out *device.Buffer, at, n int) error {
	e, k := j.e, j.k
	sched := k.enc[:]
	if j.decrypt {
		sched = k.dec[:]
	}
	ds, err := cmds.Upload(sched, true)
	if err != nil {
		return err
	}
	if j.iv == nil {
		name := "aes_ecb_encrypt"
		if j.decrypt {
			name = "aes_ecb_decrypt"
		}
		return e.launchTables(cmds, e.prog, name, n/BlockSize, j.decrypt, ds, uint32(k.rounds), in, out, uint32(n/BlockSize))
	}
	blocks, tail := n/BlockSize, n%BlockSize
	total := blocks
	if tail > 0 {
		total++
	}
	le := binary.LittleEndian
	iv := j.iv
	return e.launchTables(cmds, e.prog, "aes_ctr", total, false, ds, uint32(k.rounds),
		le.Uint32(iv), le.Uint32(iv[4:]), le.Uint32(iv[8:]), le.Uint32(iv[12:]), uint64(at/BlockSize), uint32(0),
		in, out, uint32(blocks), uint32(tail))
}

// CPU implements engine.Job: the pieces [lo, hi) with crypto/aes and
// crypto/cipher, on all cores.
func (j *streamJob) CPU(lo, hi int) {
	batch.Parallel(hi-lo, 1, func(a, b int) {
		from, to := j.span(lo+a, lo+b)
		j.compute(j.dst[from:to], j.src[from:to], from)
	})
}

// compute is the call's operation on the CPU over src, the bytes of the
// call from at, into dst (which may be src).
func (j *streamJob) compute(dst, src []byte, at int) {
	block := j.k.cipherBlock() // not nil: the call holds k
	if j.iv != nil {
		cipher.NewCTR(block, counterAt(j.iv, uint64(at/BlockSize))).XORKeyStream(dst, src)
		return
	}
	for i := 0; i < len(src); i += BlockSize {
		if j.decrypt {
			block.Decrypt(dst[i:], src[i:])
		} else {
			block.Encrypt(dst[i:], src[i:])
		}
	}
}

// parallelCopy is copy on all cores, for large buffers.
func parallelCopy(dst, src []byte) {
	n := min(len(dst), len(src))
	const piece = 1 << 20
	batch.Parallel((n+piece-1)/piece, 1, func(lo, hi int) {
		copy(dst[lo*piece:min(hi*piece, n)], src[lo*piece:min(hi*piece, n)])
	})
}
