package aes_test

import (
	"bytes"
	"context"
	stdaes "crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/xts"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// cpuEngines are the engines that compute on the CPU: the CPU engine, and
// a device engine routed there.
func cpuEngines(t *testing.T) map[string]*aes.Engine {
	dev, err := aes.NewEngine(devicetest.Device(t))
	require.NoError(t, err)
	t.Cleanup(func() { dev.Close() })
	dev.SetRoute(batch.RouteCPU)
	return map[string]*aes.Engine{"cpu engine": aes.CPUEngine(), "routed to the cpu": dev}
}

// The CPU path of every mode gives the standard library's results, and
// Stats count it.
func TestCPUEngine(t *testing.T) {
	for name, e := range cpuEngines(t) {
		t.Run(name, func(t *testing.T) {
			before := e.Stats()
			k, block, _ := newKey(t, 16)
			// ECB and CTR over several pieces, in place and not
			src := randBytes(3<<16 + 100)
			ecb := make([]byte, len(src)&^15)
			require.NoError(t, e.EncryptBlocks(k, ecb, src[:len(ecb)]))
			for i := 0; i < len(ecb); i += 16 {
				want := make([]byte, 16)
				block.Encrypt(want, src[i:i+16])
				require.Equal(t, want, ecb[i:i+16], "ECB block %d", i/16)
			}
			require.NoError(t, e.DecryptBlocks(k, ecb, ecb))
			require.Equal(t, src[:len(ecb)], ecb)
			iv := randBytes(16)
			ctr, want := bytes.Clone(src), make([]byte, len(src))
			cipher.NewCTR(block, iv).XORKeyStream(want, src)
			require.NoError(t, e.XORKeyStream(k, iv, ctr, ctr))
			require.Equal(t, want, ctr)

			// GCM, messages larger than a batch among them (pieces of a
			// batch the CPU computes whole)
			e.SetStageBytes(16 << 10)
			defer e.SetStageBytes(32 << 20)
			aead, err := cipher.NewGCM(block)
			require.NoError(t, err)
			var msgs []aes.Message
			for _, n := range []int{0, 1, 1500, 70000} {
				msgs = append(msgs, aes.Message{Key: k, Nonce: randBytes(12), AAD: randBytes(n % 17), Data: randBytes(n)})
			}
			sealed, err := e.Seal(msgs)
			require.NoError(t, err)
			for i, m := range msgs {
				require.Equal(t, aead.Seal(nil, m.Nonce, m.Data, m.AAD), sealed[i], "seal %d", i)
				msgs[i].Data = sealed[i]
			}
			msgs[1].Data = bytes.Clone(sealed[1])
			msgs[1].Data[0] ^= 1
			opened, err := e.Open(msgs)
			var be *batch.Error
			require.ErrorAs(t, err, &be)
			require.ErrorIs(t, be.Errs[1], aes.ErrOpen)
			require.Nil(t, opened[1])
			for _, i := range []int{0, 2, 3} {
				require.NoError(t, be.Errs[i])
				want, err := aead.Open(nil, msgs[i].Nonce, msgs[i].Data, msgs[i].AAD)
				require.NoError(t, err)
				require.Equal(t, len(want), len(opened[i]))
				require.True(t, bytes.Equal(want, opened[i]), "open %d", i)
			}

			// CBC and XTS
			cbc := []aes.CBCMessage{{Key: k, IV: randBytes(16), Data: randBytes(4096)}}
			enc, err := e.EncryptCBC(cbc)
			require.NoError(t, err)
			require.Equal(t, cbcReference(block, cbc[0].IV, cbc[0].Data, false), enc[0])
			xkRaw := randBytes(32)
			xk, err := aes.NewXTSKey(xkRaw)
			require.NoError(t, err)
			ref, err := xts.NewCipher(stdaes.NewCipher, xkRaw)
			require.NoError(t, err)
			sectors := randBytes(4 * 512)
			got := make([]byte, len(sectors))
			require.NoError(t, e.EncryptSectors(xk, got, sectors, 512, 7))
			for s := range 4 {
				require.Equal(t, xtsReference(ref, uint64(7+s), sectors[512*s:512*s+512], false), got[512*s:512*s+512], "sector %d", s)
			}

			after := e.Stats()
			require.Equal(t, before.DeviceOps, after.DeviceOps, "the CPU path ran on the device")
			require.Greater(t, after.CPUOps, before.CPUOps)
			require.Greater(t, after.Calls, before.Calls)
		})
	}
}

// A device-resident call on the CPU engine is an error, not a panic;
// Close makes later calls fail with batch.ErrClosed.
func TestCPUEngineLifecycle(t *testing.T) {
	e := aes.CPUEngine()
	k, _, _ := newKey(t, 16)
	require.Error(t, e.EncryptBlocksDevice(k, nil, nil, 16))
	d := devicetest.Device(t)
	buf, err := d.NewBuffer(64)
	require.NoError(t, err)
	defer buf.Release()
	require.Error(t, e.EncryptBlocksDevice(k, buf, buf, 64))
	_, err = e.SealDevice(k, make([]byte, 12), nil, buf, buf, 48)
	require.Error(t, err)
	require.NoError(t, e.Close())
	_, err = e.Seal([]aes.Message{{Key: k, Nonce: make([]byte, 12), Data: []byte("x")}})
	require.ErrorIs(t, err, batch.ErrClosed)
	require.ErrorIs(t, e.EncryptBlocks(k, make([]byte, 16), make([]byte, 16)), batch.ErrClosed)
	require.NoError(t, e.Close())

	s, err := aes.NewServer(batch.Options{}, aes.CPUEngine())
	require.NoError(t, err)
	aead, err := s.NewGCM(k)
	require.NoError(t, err)
	sealed, err := s.Seal(context.Background(), k, nil, make([]byte, 12), []byte("hello"), nil)
	require.NoError(t, err)
	require.Equal(t, aead.Seal(nil, make([]byte, 12), []byte("hello"), nil), sealed)
	require.NoError(t, s.Close())
	_, err = s.NewGCM(k)
	require.ErrorIs(t, err, batch.ErrClosed)
}

// Auto never picks a CPU-type OpenCL device (PoCL); the choice says why.
func TestAuto(t *testing.T) {
	e, choice := aes.Auto()
	defer e.Close()
	require.NotEmpty(t, choice.Reason)
	require.Equal(t, choice.Device, e.Device())
	if d := e.Device(); d != nil && os.Getenv(device.EnvDevice) == "" {
		require.NotEqual(t, device.TypeCPU, d.Type, "Auto chose a CPU device: %v", choice)
	}
}

// NewEngine and NewEngineConfig refuse a CPU device (outside the package's
// tests) with an error that names it, says why and points to CPUEngine;
// Auto, with GPUCRYPTO_DEVICE naming a CPU device, gives the CPU engine
// with that reason in its Choice.
func TestCPUDeviceRefused(t *testing.T) {
	defer aes.RefuseCPUDevices()()
	cpu := &device.Device{Info: device.Info{Name: "a CPU runtime", Type: device.TypeCPU}}
	for _, newEngine := range []func() (*aes.Engine, error){
		func() (*aes.Engine, error) { return aes.NewEngine(cpu) },
		func() (*aes.Engine, error) { return aes.NewEngineConfig(cpu, aes.Config{Layout: aes.LayoutCompact}) },
	} {
		e, err := newEngine()
		require.Nil(t, e)
		require.ErrorIs(t, err, aes.ErrCPUDevice)
		require.ErrorContains(t, err, "a CPU runtime")
		require.ErrorContains(t, err, "aes.CPUEngine()")
	}
	d := devicetest.Device(t)
	if d.Type != device.TypeCPU {
		t.Skipf("the test device %s is not a CPU device: Auto's refusal is not tested", d)
	}
	t.Setenv(device.EnvDevice, strconv.Itoa(d.Index))
	e, choice := aes.Auto()
	defer e.Close()
	require.Nil(t, e.Device())
	require.Nil(t, choice.Device)
	require.Contains(t, choice.Reason, "a CPU device", "choice: %v", choice)
	require.Contains(t, choice.Reason, d.Name)
}

// The CPU cuts long GCM messages into pieces on all cores and chains
// their GHASH values into the tag: its results are crypto/cipher's, for
// whole messages and for messages larger than a batch (whose pieces it
// cuts again), in place and not, with nonces of 12 bytes and of other
// lengths, one whose counter wraps within the message, additional data
// long and short; a changed tag or ciphertext fails to open, with the
// output zeroed. On one core nothing is cut (a message larger than a batch
// is crypto/cipher's one call), on four the long message is.
func TestCPUGCMPieces(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for name, e := range cpuEngines(t) {
		for _, c := range []struct{ stage, cores int }{{32 << 20, 4}, {256 << 10, 4}, {256 << 10, 1}} {
			t.Run(fmt.Sprintf("%s/stage %d/%d cores", name, c.stage, c.cores), func(t *testing.T) {
				runtime.GOMAXPROCS(c.cores)
				stage := c.stage
				e.SetStageBytes(stage)
				defer e.SetStageBytes(32 << 20)
				k, block, _ := newKey(t, 32)
				var wrap [16]byte
				copy(wrap[:], randBytes(12))
				binary.BigEndian.PutUint32(wrap[12:], 1<<32-3000) // wraps after 48,000 bytes
				nonces := [][]byte{randBytes(12), aes.NonceForCounter(k, wrap), randBytes(7)}
				for _, size := range []int{128<<10 + 5, 1<<20 + 3, 3 << 20} {
					for ni, nonce := range nonces {
						aad := randBytes([]int{0, 13, 70000}[ni])
						plain := randBytes(size)
						aead, err := cipher.NewGCMWithNonceSize(block, len(nonce))
						require.NoError(t, err)
						want := aead.Seal(nil, nonce, plain, aad)
						// the long message with short ones beside it, which stay whole
						msgs := []aes.Message{{Key: k, Nonce: nonce, AAD: aad, Data: plain}}
						for range 3 {
							msgs = append(msgs, aes.Message{Key: k, Nonce: nonce, Data: randBytes(100)})
						}
						for _, inPlace := range []bool{false, true} {
							label := fmt.Sprintf("%d bytes, nonce %d, AAD %d, in place %v", size, len(nonce), len(aad), inPlace)
							if inPlace {
								buf := make([]byte, size, size+aes.TagSize)
								copy(buf, plain)
								msgs[0].Data, msgs[0].Out = buf, buf[:0]
							}
							sealed, err := e.Seal(msgs)
							require.NoError(t, err, label)
							require.True(t, bytes.Equal(want, sealed[0]), label)
							for i := 1; i < len(msgs); i++ {
								require.Equal(t, aead.Seal(nil, nonce, msgs[i].Data, nil), sealed[i], label)
							}
							opens := []aes.Message{{Key: k, Nonce: nonce, AAD: aad, Data: bytes.Clone(want)}}
							if inPlace {
								opens[0].Out = opens[0].Data[:0]
							}
							opened, err := e.Open(opens)
							require.NoError(t, err, label)
							require.True(t, bytes.Equal(plain, opened[0]), label)
						}
						msgs[0].Data, msgs[0].Out = plain, nil
						for _, at := range []int{len(want) - 1, len(want) / 2} {
							bad := bytes.Clone(want)
							bad[at] ^= 1
							out := make([]byte, 0, size)
							opened, err := e.Open([]aes.Message{{Key: k, Nonce: nonce, AAD: aad, Data: bad, Out: out}})
							var be *batch.Error
							require.ErrorAs(t, err, &be)
							require.ErrorIs(t, be.Errs[0], aes.ErrOpen)
							require.Nil(t, opened[0])
							require.Equal(t, make([]byte, size), out[:size], "plaintext released")
						}
					}
				}
			})
		}
	}
}

// The CPU cuts a long CBC decryption into pieces on all cores, each from
// the ciphertext block before it (read before the piece before overwrites
// it, in place): the result is crypto/cipher's, with long and short
// messages in one batch, in place and not; XTS over long and short units
// is x/crypto's.
func TestCPUModesPieces(t *testing.T) {
	for name, e := range cpuEngines(t) {
		t.Run(name, func(t *testing.T) {
			k, block, _ := newKey(t, 16)
			var msgs []aes.CBCMessage
			for _, n := range []int{1<<20 + 48, 16, 0, 300 << 10, 4096} {
				msgs = append(msgs, aes.CBCMessage{Key: k, IV: randBytes(16), Data: randBytes(n)})
			}
			enc, err := e.EncryptCBC(msgs)
			require.NoError(t, err)
			for i, m := range msgs {
				require.Equal(t, cbcReference(block, m.IV, m.Data, false), enc[i], "encrypt %d", i)
			}
			dec := make([]aes.CBCMessage, len(msgs))
			for i, m := range msgs {
				dec[i] = aes.CBCMessage{Key: k, IV: m.IV, Data: bytes.Clone(enc[i])}
			}
			got, err := e.DecryptCBC(dec)
			require.NoError(t, err)
			for i, m := range msgs {
				require.True(t, bytes.Equal(m.Data, got[i]), "decrypt %d", i)
			}

			raw := randBytes(64)
			xk, err := aes.NewXTSKey(raw)
			require.NoError(t, err)
			ref, err := xts.NewCipher(stdaes.NewCipher, raw)
			require.NoError(t, err)
			var units []aes.XTSMessage
			var plains [][]byte
			for i, n := range []int{aes.MaxXTSDataUnit, 16, 17, 4096, 1<<20 + 5} {
				tweak := make([]byte, 16)
				binary.LittleEndian.PutUint64(tweak, uint64(i)<<40+7)
				plains = append(plains, randBytes(n))
				units = append(units, aes.XTSMessage{Key: xk, Tweak: tweak, Data: plains[i]})
			}
			out, err := e.EncryptXTS(units)
			require.NoError(t, err)
			for i, u := range units {
				want := xtsReference(ref, binary.LittleEndian.Uint64(u.Tweak), u.Data, false)
				require.True(t, bytes.Equal(want, out[i]), "XTS unit %d", i)
				units[i].Data = out[i]
			}
			back, err := e.DecryptXTS(units)
			require.NoError(t, err)
			for i := range units {
				require.True(t, bytes.Equal(plains[i], back[i]), "XTS unit %d decrypted", i)
			}
			require.NoError(t, xk.Close())
		})
	}
}
