package main

import (
	"crypto/rand"
	"time"

	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/aesvariant"
)

// benchAESManavski measures the AES design of Manavski (2007) as
// reproduced in internal/aesvariant — ECB encryption, four T-tables in
// shared memory (NOT constant-time: a benchmark baseline, never a mode of
// the library), key schedule on the host, one 256-thread block per
// 1024-byte chunk — on size bytes of device-resident data with a bits-bit
// key, for comparison with the library's "ecb" resident figures. Like
// timed, it makes one uncounted warm-up call, then calls until dur has
// passed; the kernel rate is from the launch events' device time.
func benchAESManavski(d *device.Device, bits, size int, dur time.Duration) ([]aesResult, error) {
	m, err := aesvariant.NewManavski(d)
	if err != nil {
		return nil, err
	}
	defer m.Release()
	key := make([]byte, bits/8)
	rand.Read(key)
	in, out, release, err := residentBuffers(d, size)
	if err != nil {
		return nil, err
	}
	defer release()
	if _, err := m.EncryptECBDevice(key, out, in, size); err != nil {
		return nil, err
	}
	var kern time.Duration
	n := 0
	start := time.Now()
	for n == 0 || time.Since(start) < dur {
		k, err := m.EncryptECBDevice(key, out, in, size)
		if err != nil {
			return nil, err
		}
		kern += k
		n++
	}
	wall := time.Since(start)
	return []aesResult{{Op: "ecb-manavski", Shape: "resident", KeyBits: bits, Bytes: size, Batch: 1, Calls: n,
		KernelBps: rate(size, n, kern), E2EBps: rate(size, n, wall)}}, nil
}
