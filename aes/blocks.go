package aes

import (
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
)

// BlockSize is the AES block size in bytes.
const BlockSize = 16

// EncryptBlocks encrypts src into dst in ECB mode (each 16-byte block on
// its own): the building block of key derivations, not a mode for
// messages. len(src) must be a multiple of 16; dst must be as long and may
// be src itself.
//
// The data goes through the device in chunks of a pipeline stage, each
// written to dst once complete. When the device fails, the chunks it did
// not finish (whose input is untouched, in place too) are computed on the
// CPU and the failure is reported through OnFallback; the finished ones
// are kept. The same holds for DecryptBlocks and XORKeyStream.
//
// A destroyed key gives ErrKeyDestroyed, with dst not written. The call
// holds k until it returns: Key.Destroy waits for it, so a call that found
// k live computes all of src with it. The same holds for every call of
// the engine.
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
	if len(src) == 0 {
		return nil
	}
	sched := k.enc[:]
	if decrypt {
		sched = k.dec[:]
	}
	done, err := e.stream(sched, dst, src, func(q *device.Queue, ds, buf *device.Buffer, off, n int) (*device.Event, error) {
		return e.launchBlocks(q, ds, k, buf, buf, n/BlockSize, decrypt)
	})
	if err == nil {
		return nil
	}
	e.fellBack(err)
	block := k.cipherBlock() // not nil: the call holds k
	e.redoChunks(len(src), done, func(lo, hi int) {
		for i := lo; i < hi; i += BlockSize {
			if decrypt {
				block.Decrypt(dst[i:], src[i:])
			} else {
				block.Encrypt(dst[i:], src[i:])
			}
		}
	})
	return nil
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
	sched := k.enc[:]
	if decrypt {
		sched = k.dec[:]
	}
	lease := e.pool.Lease(nil)
	var l launches
	ds, err := lease.Upload(sched, true)
	if err == nil {
		err = l.add(e.launchBlocks(nil, ds, k, src, dst, n/BlockSize, decrypt))
	}
	return e.finishDevice(lease, l, err)
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

// finishDevice waits for the kernels of a device-resident call and zeroes
// the lease's secret buffers (the schedule).
func (e *Engine) finishDevice(lease *device.Lease, l launches, err error) error {
	if err != nil {
		lease.Fail()
	}
	if werr := e.wait(l); err == nil {
		err = werr
	}
	if zerr := lease.ZeroAsync(); err == nil {
		err = zerr
	}
	if rerr := lease.Release(); err == nil {
		err = rerr
	}
	return err
}

// queue returns q, or the device's default queue for nil.
func (e *Engine) queue(q *device.Queue) (*device.Queue, error) {
	if q != nil {
		return q, nil
	}
	return e.dev.Queue()
}

// launchBlocks launches ECB on q (nil: the default queue); ds holds the
// schedule (k's decryption schedule to decrypt).
func (e *Engine) launchBlocks(q *device.Queue, ds *device.Buffer, k *Key, in, out *device.Buffer, blocks int, decrypt bool) (*device.Event, error) {
	name := "aes_ecb_encrypt"
	if decrypt {
		name = "aes_ecb_decrypt"
	}
	kern, err := e.prog.Kernel(name)
	if err != nil {
		return nil, err
	}
	if q, err = e.queue(q); err != nil {
		return nil, err
	}
	return e.launch(q, kern, e.globalSize(blocks), e.group, device.Local(e.tableBytes(decrypt)), e.tables, ds,
		uint32(k.rounds), in, out, uint32(blocks))
}

// stream runs launch over src in chunks of one pipeline stage: the host
// copies a chunk into the stage, the device copies it in, runs launch in
// place and copies it back, the host copies it to dst. When src and dst
// are both pinned memory (device.Pinned: from Device.HostAlloc) the
// device copies from and to them directly, without the host copies;
// from src only when dst is src, so that a copy that fails half-way does
// not write over input. The schedule travels in the stage's tail. Device
// buffers are leased as secret (they hold plaintext and the schedule) and
// zeroed before reuse.
//
// A chunk's result reaches dst only once every command of the chunk has
// completed, and done[c] then says that chunk c (the stage-sized chunk at
// byte c·stageSize) is finished. On an error the input of every chunk not
// done is untouched, even when dst is src, so the caller redoes just those
// (redoChunks).
func (e *Engine) stream(schedule []uint32, dst, src []byte, launch func(q *device.Queue, sched, buf *device.Buffer, off, n int) (*device.Event, error)) (done []bool, err error) {
	directIn := device.Pinned(src) && device.Pinned(dst)
	directOut := directIn && !inPlace(dst, src)
	chunks := (len(src) + e.stageSize - 1) / e.stageSize
	done = make([]bool, chunks)
	err = e.pipeline(chunks, !directOut, func(k int, st *stage) (func() error, error) {
		off := k * e.stageSize
		n := min(e.stageSize, len(src)-off)
		in, out := st.host.Bytes[:n], st.host.Bytes[:n]
		if directIn {
			in = src[off : off+n]
		} else {
			parallelCopy(in, src[off:off+n])
		}
		if directOut {
			out = dst[off : off+n]
		}
		lease := e.pool.Lease(st.q)
		var kernel, read *device.Event
		var writes []*device.Event // released (waited for) in finish, not here
		enqueued := false          // every command of the chunk
		finish := func() error {
			err := waitAll(append(writes, read)...)
			var l launches
			if kernel != nil {
				l = append(l, kernel)
			}
			if werr := e.wait(l); err == nil {
				err = werr
			}
			if err == nil && enqueued {
				if !directOut {
					parallelCopy(dst[off:off+n], out)
				}
				done[k] = true
			}
			return e.finishDevice(lease, nil, err)
		}
		tail := st.host.Bytes[e.stageSize : e.stageSize+4*len(schedule)]
		copy(tail, device.Uint32Bytes(schedule))
		sched, err := lease.Buffer(len(tail), true)
		if err != nil {
			return finish, err
		}
		buf, err := lease.Buffer(n, true)
		if err != nil {
			return finish, err
		}
		for _, w := range []struct {
			b    *device.Buffer
			host []byte
		}{{sched, tail}, {buf, in}} {
			ev, err := st.q.Write(w.b, 0, w.host)
			if err != nil {
				return finish, err
			}
			writes = append(writes, ev)
		}
		if kernel, err = launch(st.q, sched, buf, off, n); err != nil {
			return finish, err
		}
		if read, err = st.q.Read(buf, 0, out); err != nil {
			return finish, err
		}
		enqueued = true
		return finish, nil
	})
	return done, err
}

// redoChunks runs f, on all cores, on the byte range [lo, hi) of each
// chunk of an n-byte stream call that is not done.
func (e *Engine) redoChunks(n int, done []bool, f func(lo, hi int)) {
	forEachNotDone(done, func(c int) {
		lo := c * e.stageSize
		f(lo, min(lo+e.stageSize, n))
	})
}

// forEachNotDone runs f, on all cores, for each index c with !done[c].
func forEachNotDone(done []bool, f func(c int)) {
	var todo []int
	for c, ok := range done {
		if !ok {
			todo = append(todo, c)
		}
	}
	batch.Parallel(len(todo), 1, func(a, b int) {
		for _, c := range todo[a:b] {
			f(c)
		}
	})
}

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
// failure in the middle of the call leaves the chunks the device finished
// and computes the others on the CPU (see EncryptBlocks).
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
	if len(src) == 0 {
		return nil
	}
	done, err := e.stream(k.enc[:], dst, src, func(q *device.Queue, ds, buf *device.Buffer, off, n int) (*device.Event, error) {
		return e.launchCTR(q, ds, k, iv, uint64(off/BlockSize), buf, buf, n)
	})
	if err == nil {
		return nil
	}
	e.fellBack(err)
	block := k.cipherBlock() // not nil: the call holds k
	e.redoChunks(len(src), done, func(lo, hi int) {
		cipher.NewCTR(block, counterAt(iv, uint64(lo/BlockSize))).XORKeyStream(dst[lo:hi], src[lo:hi])
	})
	return nil
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
	lease := e.pool.Lease(nil)
	var l launches
	ds, err := lease.Upload(k.enc[:], true)
	if err == nil {
		err = l.add(e.launchCTR(nil, ds, k, iv, 0, src, dst, n))
	}
	return e.finishDevice(lease, l, err)
}

// launchCTR launches CTR on q (nil: the default queue); ds holds k's
// encryption schedule.
func (e *Engine) launchCTR(q *device.Queue, ds *device.Buffer, k *Key, iv []byte, first uint64, in, out *device.Buffer, n int) (*device.Event, error) {
	kern, err := e.prog.Kernel("aes_ctr")
	if err != nil {
		return nil, err
	}
	blocks, tail := n/BlockSize, n%BlockSize
	total := blocks
	if tail > 0 {
		total++
	}
	if q, err = e.queue(q); err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	return e.launch(q, kern, e.globalSize(total), e.group, device.Local(e.tableBytes(false)), e.tables, ds, uint32(k.rounds),
		le.Uint32(iv), le.Uint32(iv[4:]), le.Uint32(iv[8:]), le.Uint32(iv[12:]), first, uint32(0),
		in, out, uint32(blocks), uint32(tail))
}
