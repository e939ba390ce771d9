package aes_test

import (
	"bytes"
	"crypto/cipher"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// The tests here destroy a key while a call uses it: at the call's first
// kernel launch, after it has checked the key and before it has copied
// the key's round keys for its later chunks (one pipeline stage of 4 KB,
// so the chunks run one after the other). The call must still give
// exactly crypto/cipher's results, computed with the key as it was, and
// Close must wait for it.

// destroyer is an engine whose first kernel launch after arm(k) starts
// k.Close in another goroutine.
type destroyer struct {
	*aes.Engine
	key   atomic.Pointer[aes.Key]
	done  chan struct{} // closed when Close has returned
	early atomic.Bool   // Close returned while the call still launched kernels
}

func newDestroyer(t *testing.T) *destroyer {
	e, err := aes.NewEngineConfig(devicetest.Device(t), aes.Config{Layout: aes.LayoutCompact, Segment: 2, StageBytes: 4096, Stages: 1})
	require.NoError(t, err)
	e.SetRoute(batch.RouteDevice) // the kernels under test, whatever the CPU does
	t.Cleanup(e.ReleaseBuffers)
	e.OnFallback(func(err error) { panic("unexpected CPU fallback in tests: " + err.Error()) })
	d := &destroyer{Engine: e}
	e.SetLaunchHook(func() error {
		if k := d.key.Swap(nil); k != nil {
			done := d.done
			go func() {
				k.Close()
				close(done)
			}()
			for !k.CloseStarted() {
				runtime.Gosched()
			}
			return nil
		}
		if d.done != nil {
			select {
			case <-d.done:
				d.early.Store(true)
			default:
			}
		}
		return nil
	})
	return d
}

// arm makes the next launch destroy k.
func (d *destroyer) arm(k *aes.Key) {
	d.done = make(chan struct{})
	d.early.Store(false)
	d.key.Store(k)
}

// wait waits for Close to return (the call has returned: it must not
// hold the key any more).
func (d *destroyer) wait(t *testing.T) {
	t.Helper()
	require.Nil(t, d.key.Load(), "the call launched no kernel")
	<-d.done
}

// checkWaited checks that Close did not return before the call's last
// kernel launch.
func (d *destroyer) checkWaited(t *testing.T) {
	t.Helper()
	require.False(t, d.early.Load(), "Close returned while a call was using the key")
}

func TestDestroyDuringSealOpen(t *testing.T) {
	d := newDestroyer(t)
	for _, open := range []bool{false, true} {
		k, std, _ := newKey(t, 16)
		other, otherStd, _ := newKey(t, 32)
		aead, err := cipher.NewGCM(std)
		require.NoError(t, err)
		otherAEAD, err := cipher.NewGCM(otherStd)
		require.NoError(t, err)
		// a dozen messages in several stages, half in place, two keys
		// interleaved; and one message larger than a stage
		var msgs []aes.Message
		var want [][]byte
		for i := range 13 {
			a := aead
			m := aes.Message{Key: k, Nonce: randBytes(12), AAD: randBytes(i), Data: randBytes(700 + 37*i)}
			if i%3 == 2 {
				m.Key, a = other, otherAEAD
			}
			if i == 12 {
				m.Data = randBytes(3*4096 + 5)
			}
			sealed := a.Seal(nil, m.Nonce, m.Data, m.AAD)
			w := sealed
			if open {
				w, m.Data = m.Data, sealed
			}
			if i%2 == 0 { // in place
				buf := make([]byte, len(m.Data), len(m.Data)+aes.TagSize)
				copy(buf, m.Data)
				m.Data, m.Out = buf, buf
			}
			msgs = append(msgs, m)
			want = append(want, w)
		}
		run := d.Seal
		if open {
			run = d.Open
		}
		d.arm(k)
		out, err := run(msgs)
		d.wait(t)
		require.NoError(t, err, "open=%v", open)
		for i := range msgs {
			require.True(t, bytes.Equal(want[i], out[i]), "open=%v: message %d", open, i)
		}
		d.checkWaited(t)
		// the key is gone for later calls, which do not write its
		// elements (message 0 is in place); the other key is not
		before := bytes.Clone(msgs[0].Data)
		out, err = run([]aes.Message{msgs[0], msgs[5]})
		var be *batch.Error
		require.ErrorAs(t, err, &be)
		require.ErrorIs(t, be.Errs[0], aes.ErrKeyDestroyed)
		require.Nil(t, out[0])
		require.Equal(t, before, msgs[0].Data)
		require.NoError(t, be.Errs[1])
		require.True(t, bytes.Equal(want[5], out[1]), "open=%v: message 5 again", open)
	}
}

func TestDestroyDuringBulk(t *testing.T) {
	d := newDestroyer(t)
	src := randBytes(5*4096 + 96)
	iv := randBytes(16)
	for _, mode := range []string{"ECB encrypt", "ECB decrypt", "CTR"} {
		k, std, _ := newKey(t, 24)
		want := make([]byte, len(src))
		var call func(dst, src []byte) error
		switch mode {
		case "ECB encrypt":
			for i := 0; i < len(src); i += 16 {
				std.Encrypt(want[i:], src[i:])
			}
			call = func(dst, src []byte) error { return d.EncryptBlocks(k, dst, src) }
		case "ECB decrypt":
			for i := 0; i < len(src); i += 16 {
				std.Decrypt(want[i:], src[i:])
			}
			call = func(dst, src []byte) error { return d.DecryptBlocks(k, dst, src) }
		default:
			cipher.NewCTR(std, iv).XORKeyStream(want, src)
			call = func(dst, src []byte) error { return d.XORKeyStream(k, iv, dst, src) }
		}
		buf := bytes.Clone(src)
		d.arm(k)
		err := call(buf, buf) // in place
		d.wait(t)
		require.NoError(t, err, mode)
		require.True(t, bytes.Equal(want, buf), mode)
		d.checkWaited(t)
		require.ErrorIs(t, call(buf, buf), aes.ErrKeyDestroyed, mode)
	}
}

// TestDestroyConcurrent destroys keys while calls on other goroutines use
// them (for the race detector): each call either computes with the key as
// it was or fails with ErrKeyDestroyed before computing anything.
func TestDestroyConcurrent(t *testing.T) {
	e := engine(t, aes.LayoutCompact)
	for range 8 {
		k, std, _ := newKey(t, 16)
		aead, err := cipher.NewGCM(std)
		require.NoError(t, err)
		nonce := randBytes(12)
		data := randBytes(3000)
		want := aead.Seal(nil, nonce, data, nil)
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				msgs := make([]aes.Message, 8)
				for i := range msgs {
					msgs[i] = aes.Message{Key: k, Nonce: nonce, Data: data}
				}
				out, err := e.Seal(msgs)
				var be *batch.Error
				for i := range msgs {
					if err != nil && errors.As(err, &be) && be.Errs[i] != nil {
						if !errors.Is(be.Errs[i], aes.ErrKeyDestroyed) || out[i] != nil {
							t.Errorf("goroutine %d, message %d: %v", g, i, be.Errs[i])
						}
						continue
					}
					if err != nil && be == nil {
						t.Errorf("goroutine %d: %v", g, err)
						return
					}
					if !bytes.Equal(want, out[i]) {
						t.Errorf("goroutine %d, message %d: wrong result", g, i)
					}
				}
			}()
		}
		runtime.Gosched()
		k.Close()
		wg.Wait()
	}
}

// Close may be called more than once and returns nil; Destroy, its
// deprecated alias, closes too; an XTSKey's Close closes both its keys.
func TestCloseAndDestroy(t *testing.T) {
	e := aes.CPUEngine()
	buf := make([]byte, 32)
	for _, close := range []func(k *aes.Key) error{
		func(k *aes.Key) error { return k.Close() },
		func(k *aes.Key) error { k.Destroy(); return nil },
	} {
		k, _, _ := newKey(t, 16)
		require.NoError(t, e.EncryptBlocks(k, buf, buf))
		require.NoError(t, close(k))
		require.NoError(t, k.Close())
		require.ErrorIs(t, e.EncryptBlocks(k, buf, buf), aes.ErrKeyDestroyed)
		_, err := e.Seal([]aes.Message{{Key: k, Nonce: make([]byte, 12), Data: buf}})
		var be *batch.Error
		require.ErrorAs(t, err, &be)
		require.ErrorIs(t, be.Errs[0], aes.ErrKeyDestroyed)
	}
	for _, close := range []func(k *aes.XTSKey) error{
		func(k *aes.XTSKey) error { return k.Close() },
		func(k *aes.XTSKey) error { k.Destroy(); return nil },
	} {
		xk, err := aes.NewXTSKey(randBytes(32))
		require.NoError(t, err)
		require.NoError(t, e.EncryptSectors(xk, buf, buf, 16, 0))
		require.NoError(t, close(xk))
		require.NoError(t, xk.Close())
		require.ErrorIs(t, e.EncryptSectors(xk, buf, buf, 16, 0), aes.ErrKeyDestroyed)
	}
}

// TestCloseConcurrentCPU closes keys while calls of the CPU engine use
// them, with messages computed whole and one cut into pieces (for the
// race detector: the CPU's pass reads the keys without holding them, and
// Close must wait for it): each element either is crypto/cipher's result
// or fails with ErrKeyDestroyed, its output not written.
func TestCloseConcurrentCPU(t *testing.T) {
	e := aes.CPUEngine()
	defer e.Close()
	for range 8 {
		k, std, _ := newKey(t, 16)
		aead, err := cipher.NewGCM(std)
		require.NoError(t, err)
		nonce := randBytes(12)
		data := [][]byte{randBytes(3000), randBytes(300 << 10)}
		want := [][]byte{aead.Seal(nil, nonce, data[0], nil), aead.Seal(nil, nonce, data[1], nil)}
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				msgs := make([]aes.Message, 9)
				for i := range msgs {
					msgs[i] = aes.Message{Key: k, Nonce: nonce, Data: data[i/8]}
				}
				out, err := e.Seal(msgs)
				var be *batch.Error
				if err != nil && !errors.As(err, &be) {
					t.Errorf("goroutine %d: %v", g, err)
					return
				}
				for i := range msgs {
					if be != nil && be.Errs[i] != nil {
						if !errors.Is(be.Errs[i], aes.ErrKeyDestroyed) || out[i] != nil {
							t.Errorf("goroutine %d, message %d: %v", g, i, be.Errs[i])
						}
						continue
					}
					if !bytes.Equal(want[i/8], out[i]) {
						t.Errorf("goroutine %d, message %d: wrong result", g, i)
					}
				}
			}()
		}
		runtime.Gosched()
		require.NoError(t, k.Close())
		wg.Wait()
	}
}
