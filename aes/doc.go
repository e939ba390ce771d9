// Package aes runs AES on a GPU (or another accelerator of package device;
// not on a CPU device, see Constant time): the block cipher in ECB for key
// derivation, and the modes CTR, GCM, CBC and
// XTS, over batches of messages, over one long buffer in host memory, or
// over data already in device memory.
//
// Import it beside the standard library's package under another name:
//
//	import (
//		"crypto/aes"
//		gpuaes "github.com/gpucrypto/gpucrypto/aes"
//	)
//
// # Engines and keys
//
// An Engine runs the kernels on one device: NewEngine(nil) builds them for
// device.Default(), NewEngineConfig tunes the table layout, work-group,
// GCM segment and the device batches of host-memory calls (Config).
// CPUEngine computes the same calls on the CPU cores with crypto/aes and
// crypto/cipher: the messages of a batch spread over all cores, and one
// long message (CTR, GCM, CBC decryption, XTS sectors) cut into pieces
// over them. Auto picks a GPU engine, or the CPU engine where there is no
// GPU. NewEngine refuses a CPU device (ErrCPUDevice). A device Engine
// computes each host-memory call where it measured it faster, on the
// device or on the CPU with the CPU engine's code (SetRoute): from host
// memory, a CPU with AES instructions is often faster than the bus. An
// Engine is safe for concurrent use; Stats counts its work;
// ReleaseBuffers frees the device buffers and pinned staging memory it
// keeps between calls, Close everything.
//
// A Key (NewKey: 16, 24 or 32 bytes) holds what the kernels and the CPU
// path need, computed once: both schedules, the GHASH key and its powers,
// crypto/aes's cipher and crypto/cipher's GCM of it. An XTSKey (NewXTSKey:
// 32, 48 or 64 bytes) is XTS's pair, data key and tweak key. Keys are
// safe for concurrent use; Close zeroes them, after waiting for the calls
// using them, and later calls fail with ErrKeyDestroyed. The host's key
// expansion is constant-time: it computes the S-box and InvMixColumns with
// shifts and masks, and reads no table at an index made from the key.
//
// # Modes and calls
//
//   - ECB: EncryptBlocks and DecryptBlocks, whole 16-byte blocks of one
//     key; a building block for key derivation, not a mode for messages.
//   - CTR: XORKeyStream(k, iv, dst, src), crypto/cipher.NewCTR's counter
//     (the 16-byte block incremented as a 128-bit big-endian number).
//   - GCM: Seal and Open take a batch of Messages, each with its own key,
//     nonce (any length of at least one byte; NonceSize is the standard),
//     additional data and length, and give one result and one error each
//     (in a *batch.Error); a tag that does not match is ErrOpen for that
//     element alone, with no plaintext released. Tags are TagSize bytes and
//     compared in constant time.
//   - CBC: EncryptCBC and DecryptCBC take batches of CBCMessages (raw CBC,
//     no padding). Decryption runs every block in parallel; encryption is
//     sequential, one work-item per message, so it needs many messages.
//   - XTS (IEEE 1619-2007, SP 800-38E, with ciphertext stealing):
//     EncryptXTS and DecryptXTS take batches of data units with their own
//     16-byte tweaks; EncryptSectors and DecryptSectors cut one long buffer
//     into sectors numbered from a first sector number, as
//     golang.org/x/crypto/xts numbers them (see EncryptSectors for how the
//     number wraps).
//
// The bulk calls (EncryptBlocks, XORKeyStream, EncryptSectors and their
// inverses) and large batches go through the device in batches of bounded
// size, several in flight (Config.StageBytes and Config.Stages), so that
// copies to and from the device overlap the kernels.
//
// # Device-resident calls
//
// Data already in device buffers of the engine's device need not cross the
// bus: SealDevice and OpenDevice (GCM; only the tag and the nonce and
// additional data, in host memory, cross), XORKeyStreamDevice (CTR),
// EncryptBlocksDevice and DecryptBlocksDevice (ECB). This is where a GPU is
// far faster than the CPU; from host memory the bus bounds it
// (docs/BENCHMARKS.md).
//
// # Server and cipher.AEAD
//
// A Server (NewServer, over one Engine or several, on different devices if
// wanted) serves AES-GCM Seal and Open requests from many goroutines.
// Server.NewGCM(k) returns a crypto/cipher.AEAD with the standard 12-byte
// nonce and 16-byte tag that follows crypto/cipher's contract;
// Server.Seal and Server.Open take a context and return errors where
// cipher.AEAD would panic. By default each request is computed at once
// with crypto/cipher in the caller's goroutine, as crypto/cipher's caller
// would: for records of a few kilobytes in host memory the device never
// measured faster than the CPU, whose seal takes under a microsecond.
// With batch.Options.CPUOffload negative, the requests are gathered into
// batches for the engines instead. Large batches and data already in
// device memory are the Engine's.
//
// # Constant time
//
// The kernels are T-table AES: each round reads its tables at indices made
// from key and data bytes. What makes that constant-time on a GPU is
// where the tables are: in local (shared) memory, replicated so that each
// lane of a warp only ever reads its own bank (kernels/aes_tables.h gives
// the argument; Layout picks one table rotated, LayoutCompact, or all four,
// LayoutWide). A warp's load from shared memory then takes one pass
// whatever its indices: the reads are bank-conflict-free, so their timing
// does not depend on the indices. The indices themselves still depend on
// the secrets; the claim is about shared memory's timing, not that the
// reads are independent of the key. On a CPU device (an OpenCL CPU runtime
// such as PoCL) the same tables sit in the CPU's caches, where the line
// each read selects is visible to another process on the same cores
// through cache timing: NewEngine refuses CPU devices (ErrCPUDevice), and
// the CPU path is crypto/aes (CPUEngine), constant-time where the CPU has
// AES instructions.
// GHASH uses no table at all; no global-memory index depends on a key or
// on data. Every buffer that held keys, schedules or plaintext is zeroed
// before it is reused, on the host and on the device.
//
// # Device faults and the result check
//
// When the device fails during a call, the batches it did not finish are
// redone on the CPU (crypto/aes, crypto/cipher) and the failure is
// reported through OnFallback (and a logger set with SetLogger; nothing is
// logged by default): results are never wrong because of a device fault.
// SetResultCheck(n) additionally recomputes about one result in n on the
// CPU and compares, before a batch's results are written: a device that
// returns a wrong result has its batch redone on the CPU and reported the
// same way. It is off by default. SelfTest checks an Engine against known
// answers.
package aes
