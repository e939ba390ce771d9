package aes_test

import (
	"bytes"
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/internal/devicetest"
)

// The tests here make the device fail in the middle of a call: the k-th
// kernel launch of the call fails, after the chunks before it were
// written (in place, over their input) and with its own chunk half
// enqueued. The call must still give exactly crypto/cipher's result.

// midCallStage is the staging of a pipeline stage in these tests: every
// call spans several chunks with small inputs.
const midCallStage = 4096

var errMidCall = errors.New("simulated device failure in the middle of a call")

// midCall is an engine whose k-th kernel launch after arm(k) fails.
type midCall struct {
	*aes.Engine
	launches, failAt atomic.Int64
	failed           atomic.Bool // the launch failed since the last check
	mu               sync.Mutex
	reports          int
}

// newMidCall is a midCall of stages pipeline stages: with one, the chunks
// run one after the other, so that those before the failing launch are
// finished when it fails.
func newMidCall(t *testing.T, stages int) *midCall {
	e, err := aes.NewEngineConfig(devicetest.Device(t), aes.Config{Layout: aes.LayoutCompact, Segment: 2, StageBytes: midCallStage, Stages: stages})
	require.NoError(t, err)
	e.SetRoute(batch.RouteDevice) // the kernels under test, whatever the CPU does
	t.Cleanup(e.ReleaseBuffers)
	m := &midCall{Engine: e}
	e.OnFallback(func(err error) {
		if !errors.Is(err, errMidCall) {
			panic("unexpected CPU fallback in tests: " + err.Error())
		}
		m.mu.Lock()
		m.reports++
		m.mu.Unlock()
	})
	e.SetLaunchHook(func() error {
		if m.launches.Add(1) == m.failAt.Load() {
			m.failed.Store(true)
			return errMidCall
		}
		return nil
	})
	return m
}

// arm makes the k-th launch from now fail (0: none).
func (m *midCall) arm(k int) {
	m.launches.Store(0)
	m.failAt.Store(int64(k))
}

// checkFellBack checks that the calls since the last check fell back to
// the CPU if and only if a launch failed.
func (m *midCall) checkFellBack(t *testing.T) {
	t.Helper()
	m.mu.Lock()
	n := m.reports
	m.reports = 0
	m.mu.Unlock()
	require.Equal(t, m.failed.Swap(false), n > 0, "fell back to the CPU")
}

// eachMidCall runs f on engines of one and of three stages, with the k-th
// launch failing for every k up to launches (and once with none failing).
func eachMidCall(t *testing.T, launches int, f func(t *testing.T, m *midCall, k int)) {
	for _, stages := range []int{1, 3} {
		m := newMidCall(t, stages)
		for k := 0; k <= launches; k++ {
			t.Run(fmt.Sprintf("stages=%d/fail=%d", stages, k), func(t *testing.T) {
				m.arm(k)
				f(t, m, k)
				m.arm(0)
			})
		}
	}
}

// TestMidCallBulkInPlace: CTR and ECB in place across six chunks.
func TestMidCallBulkInPlace(t *testing.T) {
	k, std, _ := newKey(t, 16)
	src := randBytes(5*midCallStage + 100)
	iv := randBytes(16)
	iv[15] = 0xff // the counter carries across bytes within the first chunk
	wantCTR := make([]byte, len(src))
	cipher.NewCTR(std, iv).XORKeyStream(wantCTR, src)
	n16 := len(src) &^ 15
	wantECB := make([]byte, n16)
	for i := 0; i < n16; i += 16 {
		std.Encrypt(wantECB[i:], src[i:])
	}
	eachMidCall(t, 6, func(t *testing.T, m *midCall, fail int) {
		buf := append([]byte(nil), src...)
		require.NoError(t, m.XORKeyStream(k, iv, buf, buf))
		m.checkFellBack(t)
		require.True(t, bytes.Equal(wantCTR, buf), "CTR in place")

		m.arm(fail)
		buf = append(buf[:0], src[:n16]...)
		require.NoError(t, m.EncryptBlocks(k, buf, buf))
		m.checkFellBack(t)
		require.True(t, bytes.Equal(wantECB, buf), "ECB encryption in place")
		m.arm(fail)
		require.NoError(t, m.DecryptBlocks(k, buf, buf))
		m.checkFellBack(t)
		require.True(t, bytes.Equal(src[:n16], buf), "ECB decryption in place")
	})
}

// TestMidCallModes: XTS sectors in place, and CBC and XTS batches (whose
// results are new, but whose failing chunk must not be taken as done).
func TestMidCallModes(t *testing.T) {
	xk, err := aes.NewXTSKey(randBytes(32))
	require.NoError(t, err)
	dev := engine(t, aes.LayoutCompact)
	src := randBytes(40 * 520) // six chunks of sectors
	wantSectors := make([]byte, len(src))
	require.NoError(t, dev.EncryptSectors(xk, wantSectors, src, 520, 7))
	var cbc []aes.CBCMessage
	var units []aes.XTSMessage
	for i := range 16 {
		k, _, _ := newKey(t, []int{16, 24, 32}[i%3])
		cbc = append(cbc, aes.CBCMessage{Key: k, IV: randBytes(16), Data: randBytes(1008)})
		units = append(units, aes.XTSMessage{Key: xk, Tweak: randBytes(16), Data: randBytes(1000 + i)})
	}
	calls := []struct {
		name string
		f    func(e *aes.Engine) ([][]byte, error)
	}{
		{"EncryptCBC", func(e *aes.Engine) ([][]byte, error) { return e.EncryptCBC(cbc) }},
		{"DecryptCBC", func(e *aes.Engine) ([][]byte, error) { return e.DecryptCBC(cbc) }},
		{"EncryptXTS", func(e *aes.Engine) ([][]byte, error) { return e.EncryptXTS(units) }},
		{"DecryptXTS", func(e *aes.Engine) ([][]byte, error) { return e.DecryptXTS(units) }},
	}
	wants := make([][][]byte, len(calls))
	for c, call := range calls {
		wants[c], err = call.f(dev)
		require.NoError(t, err)
	}
	eachMidCall(t, 12, func(t *testing.T, m *midCall, fail int) {
		buf := append([]byte(nil), src...)
		require.NoError(t, m.EncryptSectors(xk, buf, buf, 520, 7))
		m.checkFellBack(t)
		require.True(t, bytes.Equal(wantSectors, buf), "XTS sectors encrypted in place")
		m.arm(fail)
		require.NoError(t, m.DecryptSectors(xk, buf, buf, 520, 7))
		m.checkFellBack(t)
		require.True(t, bytes.Equal(src, buf), "XTS sectors decrypted in place")
		for c, call := range calls {
			m.arm(fail)
			got, err := call.f(m.Engine)
			require.NoError(t, err)
			m.checkFellBack(t)
			require.Equal(t, wants[c], got, call.name)
		}
	})
}

// gcmInPlace is msgs with each Data copied into a buffer that also holds
// the result, and Out that buffer: Seal and Open in place.
func gcmInPlace(msgs []aes.Message) []aes.Message {
	out := make([]aes.Message, len(msgs))
	for i, m := range msgs {
		buf := make([]byte, len(m.Data), len(m.Data)+aes.TagSize)
		copy(buf, m.Data)
		m.Data, m.Out = buf, buf[:0]
		out[i] = m
	}
	return out
}

// checkGCMInPlace checks Seal or Open results against want (nil: ErrOpen),
// each computed in its own Data.
func checkGCMInPlace(t *testing.T, msgs []aes.Message, got [][]byte, err error, want [][]byte) {
	t.Helper()
	var errs []error
	var be *batch.Error
	if errors.As(err, &be) {
		errs = be.Errs
	} else {
		require.NoError(t, err)
	}
	for i := range msgs {
		if want[i] == nil {
			require.ErrorIs(t, errs[i], aes.ErrOpen, "message %d", i)
			require.Nil(t, got[i], "message %d", i)
			require.Equal(t, make([]byte, len(msgs[i].Data)-aes.TagSize), msgs[i].Data[:len(msgs[i].Data)-aes.TagSize], "message %d: plaintext left", i)
			continue
		}
		if errs != nil {
			require.NoError(t, errs[i], "message %d", i)
		}
		require.True(t, bytes.Equal(want[i], got[i]), "message %d (%d bytes)", i, len(want[i]))
		if len(want[i]) > 0 {
			require.Same(t, &msgs[i].Data[0], &got[i][0], "message %d not in place", i)
		}
	}
}

// gcmMidCall seals msgs (blocks: their keys) in place, then opens the results in place (one
// with a tampered tag), with launch fail failing, and compares with
// crypto/cipher.
func gcmMidCall(t *testing.T, m *midCall, fail int, msgs []aes.Message, blocks []cipher.Block, tamper int) {
	sealed := make([][]byte, len(msgs))
	plain := make([][]byte, len(msgs))
	for i, msg := range msgs {
		aead, err := cipher.NewGCMWithNonceSize(blocks[i], len(msg.Nonce))
		require.NoError(t, err)
		sealed[i] = aead.Seal(nil, msg.Nonce, msg.Data, msg.AAD)
		plain[i] = msg.Data
	}
	in := gcmInPlace(msgs)
	got, err := m.Seal(in)
	m.checkFellBack(t)
	checkGCMInPlace(t, in, got, err, sealed)

	for i := range in {
		in[i].Data, in[i].Out = got[i], got[i][:0]
	}
	in[tamper].Data[len(in[tamper].Data)-1] ^= 1
	plain[tamper] = nil
	m.arm(fail)
	got, err = m.Open(in)
	m.checkFellBack(t)
	checkGCMInPlace(t, in, got, err, plain)
}

// TestMidCallGCMInPlace: a batch over several pipeline stages and a
// message larger than a stage, sealed and opened in place, with the
// result check off and on.
func TestMidCallGCMInPlace(t *testing.T) {
	var msgs []aes.Message
	var blocks []cipher.Block
	for i := range 12 {
		k, std, _ := newKey(t, []int{16, 24, 32}[i%3])
		nonce := randBytes([]int{12, 12, 8}[i%3])
		msgs = append(msgs, aes.Message{Key: k, Nonce: nonce, AAD: randBytes(i * 5), Data: randBytes(900 + 97*i)})
		blocks = append(blocks, std)
	}
	k, std, _ := newKey(t, 32)
	large := []aes.Message{{Key: k, Nonce: randBytes(12), AAD: randBytes(20), Data: randBytes(5*midCallStage + 100)}}
	for _, check := range []int{0, 1} {
		t.Run(fmt.Sprintf("check=%d", check), func(t *testing.T) {
			eachMidCall(t, 30, func(t *testing.T, m *midCall, fail int) {
				m.SetResultCheck(check)
				defer m.SetResultCheck(0)
				gcmMidCall(t, m, fail, msgs, blocks, 5)
				m.arm(fail)
				gcmMidCall(t, m, fail, large, []cipher.Block{std}, 0)
			})
		})
	}
}

// TestMidCallCounterWrap: the CPU finishing a message larger than a stage
// increments GCM's counter modulo 2³², as the device does (and
// crypto/cipher): a nonce whose counter wraps within the message.
func TestMidCallCounterWrap(t *testing.T) {
	m := newMidCall(t, 1)
	k, std, _ := newKey(t, 16)
	var j0 [16]byte
	copy(j0[:], randBytes(12))
	binary.BigEndian.PutUint32(j0[12:], 1<<32-300) // wraps in the second chunk
	msgs := []aes.Message{{Key: k, Nonce: aes.NonceForCounter(k, j0), Data: randBytes(5 * midCallStage)}}
	for _, fail := range []int{0, 1, 2, 6, 9} {
		m.arm(fail)
		gcmMidCall(t, m, fail, msgs, []cipher.Block{std}, 0)
	}
}
