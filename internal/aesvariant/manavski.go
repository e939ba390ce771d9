// Package aesvariant holds AES kernels of other designs than the
// library's, run on the library's device layer so that benchmarks can
// compare them with package aes on the same GPU. It is internal: these
// are measurement tools, not API, and they are NOT constant-time.
package aesvariant

import (
	"embed"
	"errors"
	"fmt"
	"time"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/kernels"
)

// The work split of the paper (kernels/aes_manavski.cl): one block of 256
// threads per 1024-byte chunk, one 32-bit column (word) per thread.
const (
	manavskiThreads    = 256
	manavskiChunkBytes = 1024
	// local memory of a block: T0..T3 (4 KB), two state arrays of one
	// chunk, and with the key in shared memory its 60 words
	manavskiLocalBytes    = 4*1024 + 2*manavskiChunkBytes
	manavskiKeyLocalBytes = 4 * 60
	// maxBytes keeps the work-item index (one per word) and the word
	// count within the kernel's 32-bit numbers.
	maxBytes = 1 << 33
)

// ManavskiConfig chooses between the two versions of the paper's design.
type ManavskiConfig struct {
	// KeyInShared loads the expanded key into shared memory in every
	// block, the paper's first version. The default (false) is its final
	// version, the one its figures report: the key read through a cache
	// (texture memory in the paper; a read-only global pointer here).
	KeyInShared bool
}

// Manavski is AES-ECB encryption as designed in S. A. Manavski, "CUDA
// compatible GPU as an efficient hardware accelerator for AES
// cryptography" (2007), §5.2: four T-tables, the key schedule expanded on
// the host, the input cut into 1024-byte chunks of one 256-thread block
// each, every thread computing one column of one block per round through
// two shared-memory state arrays swapped between rounds. The tables are
// in shared memory (the paper had them in constant memory); see
// kernels/aes_manavski.cl for the design and how the paper was read.
//
// NOT CONSTANT-TIME: the T-tables are stored once in shared memory and
// indexed by bytes of the secret state, so shared-memory bank conflicts —
// and the kernel's running time — depend on the key and the data. This
// type exists only to benchmark the paper's design against package aes,
// whose replicated tables are constant-time. Never use it to protect
// data.
//
// A Manavski is safe for concurrent use.
type Manavski struct {
	dev    *device.Device
	kern   *device.Kernel
	tables *device.Buffer
	local  int
}

// NewManavski builds the Manavski kernel (its final version: the key in
// cached memory) for dev (nil: device.Default()) and uploads its tables.
// NOT constant-time: benchmarks only (see Manavski).
func NewManavski(dev *device.Device) (*Manavski, error) {
	return NewManavskiConfig(dev, ManavskiConfig{})
}

// NewManavskiConfig is NewManavski with a choice of version.
func NewManavskiConfig(dev *device.Device, cfg ManavskiConfig) (*Manavski, error) {
	if dev == nil {
		var err error
		if dev, err = device.Default(); err != nil {
			return nil, err
		}
	}
	local := manavskiLocalBytes
	if cfg.KeyInShared {
		local += manavskiKeyLocalBytes
	}
	if dev.MaxGroup < manavskiThreads {
		return nil, fmt.Errorf("aesvariant: the Manavski kernel runs in blocks of %d threads; %s allows %d", manavskiThreads, dev.Name, dev.MaxGroup)
	}
	if dev.MaxSharedMem < uint64(local) {
		return nil, fmt.Errorf("aesvariant: the Manavski kernel needs %d bytes of local memory; %s allows %d", local, dev.Name, dev.MaxSharedMem)
	}
	p, err := dev.Program(manavskiSource(cfg))
	if err != nil {
		return nil, fmt.Errorf("aesvariant: building the Manavski kernel for %s: %w", dev.Name, err)
	}
	k, err := p.Kernel("manavski_ecb_encrypt")
	if err != nil {
		return nil, err
	}
	tables, err := dev.Upload(device.Uint32Bytes(tTables()))
	if err != nil {
		return nil, fmt.Errorf("aesvariant: uploading the T-tables to %s: %w", dev.Name, err)
	}
	return &Manavski{dev: dev, kern: k, tables: tables, local: local}, nil
}

// kernelFiles holds the baseline's kernel, apart from the library's
// kernels (it is not constant-time): it builds on their dialect.h.
//
//go:embed aes_manavski.cl
var kernelFiles embed.FS

// manavskiSource is the kernel program of a configuration.
func manavskiSource(cfg ManavskiConfig) device.Source {
	shared := "0"
	if cfg.KeyInShared {
		shared = "1"
	}
	return kernels.ProgramFrom(kernelFiles, "aes_manavski.cl", map[string]string{"MANAVSKI_KEY_SHARED": shared})
}

// Device is the device the kernel runs on.
func (m *Manavski) Device() *device.Device { return m.dev }

// Release frees the device's copy of the tables.
func (m *Manavski) Release() error { return m.tables.Release() }

// EncryptECBDevice encrypts the first n bytes of src (a multiple of 16)
// into dst with key (16, 24 or 32 bytes: AES-128, -192, -256) in ECB
// mode; both are buffers of the Manavski's device, and dst may be src.
// The key schedule is expanded on the host and uploaded for the call. It
// returns the kernel's device time, from its launch event (the schedule's
// upload is not in it). NOT constant-time: benchmarks only.
func (m *Manavski) EncryptECBDevice(key []byte, dst, src *device.Buffer, n int) (time.Duration, error) {
	sched, rounds, err := expandKey(key)
	if err != nil {
		return 0, err
	}
	defer clear(sched)
	if dst == nil || src == nil {
		return 0, errors.New("aesvariant: nil device buffer")
	}
	if n < 0 || n%16 != 0 {
		return 0, fmt.Errorf("aesvariant: ECB input of %d bytes is not a whole number of blocks", n)
	}
	if n > src.Size() || n > dst.Size() {
		return 0, fmt.Errorf("aesvariant: %d bytes do not fit the buffers (%d and %d bytes)", n, src.Size(), dst.Size())
	}
	if n > maxBytes {
		return 0, fmt.Errorf("aesvariant: %d bytes in one call: at most %d", n, maxBytes)
	}
	if n == 0 {
		return 0, nil
	}
	rk, err := m.dev.Upload(device.Uint32Bytes(sched))
	if err != nil {
		return 0, err
	}
	defer func() {
		rk.Zero() // ordered after the kernel on the default queue
		rk.Release()
	}()
	words := n / 4
	chunks := (n + manavskiChunkBytes - 1) / manavskiChunkBytes
	ev, err := m.kern.Launch(chunks*manavskiThreads, manavskiThreads, device.Local(m.local), m.tables, rk,
		uint32(rounds), src, dst, uint32(words))
	if err != nil {
		return 0, err
	}
	d, err := ev.Duration()
	if rerr := ev.Release(); err == nil {
		err = rerr
	}
	if err != nil {
		return 0, err
	}
	return d, nil
}
