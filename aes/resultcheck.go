package aes

import (
	"bytes"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"sync/atomic"

	"github.com/gpucrypto/gpucrypto/batch"
)

// SetResultCheck makes the engine recompute about one device result in
// every on the CPU (crypto/aes and crypto/cipher, as the CPU fallback
// computes them) and compare (0, the default: no check). A device that
// returns a wrong result (bad memory, a driver or compiler fault) is then
// caught: the whole call is recomputed on the CPU and the fault reported
// through OnFallback, as a failed device call is. When the check is on,
// the first element of each call is always checked, and after a device
// failure in the middle of a call the elements the device finished are
// still checked.
//
// It applies to the batch calls: Seal and Open (GCM), EncryptCBC and
// DecryptCBC, EncryptXTS and DecryptXTS; the bulk calls (EncryptBlocks,
// XORKeyStream, EncryptSectors and their inverses) and the
// device-resident ones are not checked.
//
// The cost is 1/every of what the CPU would spend on the whole work: Go's
// AES-GCM runs at about 2 GB/s per core (docs/BENCHMARKS.md: 28-33 GB/s on
// 16 cores), so with every = 1,000 a device call of 6 GB/s keeps 0.3% of
// one core busy. A GCM element computed in place (Out is Data) costs one
// more copy of its input when the check is on (beside the two copies of
// the staging the device path makes), kept so that a failed check can
// still recompute it.
func (e *Engine) SetResultCheck(every int) { e.checkEvery.Store(int64(max(every, 0))) }

// errResultCheck says that an element's device result differed from the
// CPU's.
func errResultCheck(mode string, i int) error {
	return fmt.Errorf("aes: %s: the device's result of element %d differs from the CPU's (result check)", mode, i)
}

// resultSample is the elements of valid to check (SetResultCheck): none
// when the check is off, else the first and about one in every of the
// others.
func (e *Engine) resultSample(valid []int) []int {
	every := e.checkEvery.Load()
	if every <= 0 || len(valid) == 0 {
		return nil
	}
	idx := []int{valid[0]}
	for _, i := range valid[1:] {
		if mrand.Int64N(every) == 0 {
			idx = append(idx, i)
		}
	}
	return idx
}

// gcmCheck is the result check of a GCM call: the CPU's results of the
// sampled elements, computed before the device runs (an element computed
// in place loses its input), and the inputs of the elements computed in
// place, to recompute the call if the check fails.
type gcmCheck struct {
	sample []int
	want   [][]byte // nil: the CPU refused (Open: ErrOpen)
	wantOK []bool
	inputs []Message // msgs, with the in-place elements' Data copied
}

// newGCMCheck prepares the check of a GCM call (nil when it is off).
func (e *Engine) newGCMCheck(msgs []Message, valid []int, open bool, res *results) *gcmCheck {
	sample := e.resultSample(valid)
	if sample == nil {
		return nil
	}
	c := &gcmCheck{sample: sample, want: make([][]byte, len(sample)), wantOK: make([]bool, len(sample)), inputs: msgs}
	for _, i := range valid {
		if out := res.out[i]; len(out) > 0 && len(msgs[i].Data) > 0 && &out[0] == &msgs[i].Data[0] {
			if &c.inputs[0] == &msgs[0] {
				c.inputs = append([]Message(nil), msgs...)
			}
			c.inputs[i].Data = bytes.Clone(msgs[i].Data)
		}
	}
	batch.Parallel(len(sample), 16, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			m := &msgs[sample[k]]
			want, err := gcmOne(m, open, make([]byte, len(res.out[sample[k]])))
			c.want[k], c.wantOK[k] = want, err == nil
		}
	})
	return c
}

// mismatch is the first sampled element whose device result differs from
// the CPU's (-1: none).
func (c *gcmCheck) mismatch(res *results, errs []error) int {
	for k, i := range c.sample {
		if c.wantOK[k] != (errs[i] == nil) || (errs[i] == nil && !bytes.Equal(c.want[k], res.out[i])) {
			return i
		}
	}
	return -1
}

// checkGCM runs the result check of a GCM call the device computed; when
// it fails, the call is recomputed on the CPU into new results.
func (e *Engine) checkGCM(c *gcmCheck, msgs []Message, valid []int, open bool, res *results, errs []error) *results {
	if c == nil {
		return res
	}
	i := c.mismatch(res, errs)
	if i < 0 {
		return res
	}
	e.fellBack(errResultCheck("GCM", i))
	for _, j := range valid {
		if out := res.out[j]; out != nil {
			clear(out)
		}
		errs[j] = nil
	}
	redo := newResults(msgs, valid, open) // Out where it fits, as before
	e.gcmCPU(c.inputs, valid, open, redo, errs)
	return redo
}

// checkModes runs the result check of a CBC or XTS call: the sampled
// elements (each its data, keys and IV) recomputed on the CPU and compared
// with out. It returns an error naming an element that differs (nil: none).
func (e *Engine) checkModes(kind modeKind, sample []int, element func(i int) (data []byte, key, tweakKey *Key, iv []byte, err error), out [][]byte) error {
	var bad atomic.Int64
	bad.Store(-1)
	batch.Parallel(len(sample), 16, func(lo, hi int) {
		for _, i := range sample[lo:hi] {
			data, key, tweak, iv, err := element(i)
			if err != nil || out[i] == nil {
				continue // refused before the device, or failed alone (fail)
			}
			want := make([]byte, len(data))
			var v [16]byte
			copy(v[:], iv)
			if err := cryptCPU(kind, key, tweak, &v, want, data); errors.Is(err, ErrKeyDestroyed) {
				continue
			}
			if !bytes.Equal(want, out[i]) {
				bad.Store(int64(i))
			}
		}
	})
	if i := bad.Load(); i >= 0 {
		mode := "CBC"
		if kind.xts() {
			mode = "XTS"
		}
		return errResultCheck(mode, int(i))
	}
	return nil
}
