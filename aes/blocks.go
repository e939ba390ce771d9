package aes

import (
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/gpucrypto/gpucrypto/device"
)

// BlockSize is the AES block size in bytes.
const BlockSize = 16

// chunkBytes is the most data one round of upload, kernel and read-back
// moves in the host-memory calls.
const chunkBytes = 64 << 20

// EncryptBlocks encrypts src into dst in ECB mode (each 16-byte block on
// its own): the building block of key derivations, not a mode for
// messages. len(src) must be a multiple of 16; dst must be as long and may
// be src itself.
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
	if err := k.live(); err != nil {
		return err
	}
	if len(src)%BlockSize != 0 {
		return fmt.Errorf("aes: ECB input of %d bytes is not a whole number of blocks", len(src))
	}
	if err := checkBuffers(dst, src); err != nil {
		return err
	}
	if len(src) == 0 {
		return nil
	}
	err := e.stream(k, dst, src, func(lease *device.Lease, in, out *device.Buffer, off, n int) (*device.Event, error) {
		return e.launchBlocks(lease, k, in, out, n/BlockSize, decrypt)
	})
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrKeyDestroyed) {
		return err
	}
	e.fellBack(err)
	block := k.cipherBlock()
	if block == nil {
		return ErrKeyDestroyed
	}
	for i := 0; i < len(src); i += BlockSize {
		if decrypt {
			block.Decrypt(dst[i:], src[i:])
		} else {
			block.Encrypt(dst[i:], src[i:])
		}
	}
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
	if err := k.live(); err != nil {
		return err
	}
	if n%BlockSize != 0 {
		return fmt.Errorf("aes: ECB input of %d bytes is not a whole number of blocks", n)
	}
	if err := checkDeviceBuffers(dst, src, n); err != nil {
		return err
	}
	lease := e.pool.Lease(nil)
	var l launches
	err := l.add(e.launchBlocks(lease, k, src, dst, n/BlockSize, decrypt))
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

func (e *Engine) launchBlocks(lease *device.Lease, k *Key, in, out *device.Buffer, blocks int, decrypt bool) (*device.Event, error) {
	sched, name := k.enc[:], "aes_ecb_encrypt"
	if decrypt {
		sched, name = k.dec[:], "aes_ecb_decrypt"
	}
	ds, err := lease.Upload(sched, true)
	if err != nil {
		return nil, err
	}
	kern, err := e.prog.Kernel(name)
	if err != nil {
		return nil, err
	}
	return kern.Launch(e.globalSize(blocks), e.group, device.Local(e.tableBytes(decrypt)), e.tables, ds,
		uint32(k.rounds), in, out, uint32(blocks))
}

// stream runs launch over src in chunks of chunkBytes: upload, kernel,
// read-back into dst. Device buffers are leased as secret (they hold
// plaintext) and zeroed before they are reused.
func (e *Engine) stream(k *Key, dst, src []byte, launch func(lease *device.Lease, in, out *device.Buffer, off, n int) (*device.Event, error)) error {
	if err := e.fail(); err != nil {
		return err
	}
	lease := e.pool.Lease(nil)
	size := min(len(src), chunkBytes)
	in, err := lease.Buffer(size, true)
	var out *device.Buffer
	if err == nil {
		out, err = lease.Buffer(size, true)
	}
	var l launches
	for off := 0; err == nil && off < len(src); off += size {
		n := min(size, len(src)-off)
		if err = in.Write(0, src[off:off+n]); err != nil {
			break
		}
		var ev *device.Event
		if ev, err = launch(lease, in, out, off, n); err != nil {
			break
		}
		l = append(l, ev)
		if err = out.Read(0, dst[off:off+n]); err != nil {
			break
		}
	}
	return e.finishDevice(lease, l, err)
}

// XORKeyStream encrypts or decrypts src into dst in CTR mode with the
// counter block iv (16 bytes), incremented as a 128-bit big-endian number
// per block, as crypto/cipher.NewCTR does. dst may be src itself.
func (e *Engine) XORKeyStream(k *Key, iv, dst, src []byte) error {
	if err := k.live(); err != nil {
		return err
	}
	if len(iv) != BlockSize {
		return fmt.Errorf("aes: CTR counter block of %d bytes, want 16", len(iv))
	}
	if err := checkBuffers(dst, src); err != nil {
		return err
	}
	if len(src) == 0 {
		return nil
	}
	err := e.stream(k, dst, src, func(lease *device.Lease, in, out *device.Buffer, off, n int) (*device.Event, error) {
		return e.launchCTR(lease, k, iv, uint64(off/BlockSize), in, out, n)
	})
	if err == nil {
		return nil
	}
	e.fellBack(err)
	block := k.cipherBlock()
	if block == nil {
		return ErrKeyDestroyed
	}
	cipher.NewCTR(block, iv).XORKeyStream(dst[:len(src)], src)
	return nil
}

// XORKeyStreamDevice is XORKeyStream on n bytes of device buffers of the
// engine's device (dst may be src).
func (e *Engine) XORKeyStreamDevice(k *Key, iv []byte, dst, src *device.Buffer, n int) error {
	if err := k.live(); err != nil {
		return err
	}
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
	err := l.add(e.launchCTR(lease, k, iv, 0, src, dst, n))
	return e.finishDevice(lease, l, err)
}

func (e *Engine) launchCTR(lease *device.Lease, k *Key, iv []byte, first uint64, in, out *device.Buffer, n int) (*device.Event, error) {
	ds, err := lease.Upload(k.enc[:], true)
	if err != nil {
		return nil, err
	}
	kern, err := e.prog.Kernel("aes_ctr")
	if err != nil {
		return nil, err
	}
	blocks, tail := n/BlockSize, n%BlockSize
	total := blocks
	if tail > 0 {
		total++
	}
	le := binary.LittleEndian
	return kern.Launch(e.globalSize(total), e.group, device.Local(e.tableBytes(false)), e.tables, ds, uint32(k.rounds),
		le.Uint32(iv), le.Uint32(iv[4:]), le.Uint32(iv[8:]), le.Uint32(iv[12:]), first,
		in, out, uint32(blocks), uint32(tail))
}
