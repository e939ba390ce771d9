package rsa_test

import (
	"crypto"
	stdrsa "crypto/rsa"
	"crypto/sha256"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpucrypto/gpucrypto/rsa"
)

// The device's fault check, proven by corrupting one CRT half on the
// device (before recombination): that element fails with ErrFault and
// returns no value, the others are right, and the engine did not fall
// back to the CPU (the check ran on the device). Every key size.
func TestDeviceFaultCheck(t *testing.T) {
	e := deviceEngine(t)
	for _, sz := range sizes {
		t.Run(sz.key, func(t *testing.T) {
			k := key(t, sz.key)
			n := max(sz.n, 3)
			digests := make([][]byte, n)
			for i := range digests {
				d := sha256.Sum256([]byte{byte(i), 7})
				digests[i] = d[:]
			}
			const bad = 1
			require.True(t, e.InjectDeviceFault(t, bad))
			sigs, err := e.SignPKCS1v15(repeat(k, n), crypto.SHA256, digests)
			errs := elementErrs(t, err, n)
			for i := range n {
				if i == bad {
					require.ErrorIs(t, errs[i], rsa.ErrFault)
					require.Nil(t, sigs[i])
					continue
				}
				require.NoError(t, errs[i])
				require.NoError(t, stdrsa.VerifyPKCS1v15(&k.PublicKey, crypto.SHA256, digests[i], sigs[i]))
			}
			// the fault is one-shot: the next batch is clean
			sigs, err = e.SignPKCS1v15(repeat(k, n), crypto.SHA256, digests)
			require.NoError(t, err)
			require.NoError(t, stdrsa.VerifyPKCS1v15(&k.PublicKey, crypto.SHA256, digests[bad], sigs[bad]))
		})
	}
}

func TestSelfTest(t *testing.T) {
	forEngines(t, func(t *testing.T, e *rsa.Engine) {
		require.NoError(t, rsa.SelfTest(e))
	})
}

// Batches from several goroutines at once on one device engine: private
// and public batches of different sizes and key sizes share the engine's
// device memory (one batch at a time on the device, buffers grown as
// needed and zeroed after each batch), and every result is right.
func TestDeviceConcurrentBatches(t *testing.T) {
	e := deviceEngine(t)
	keys := []*stdrsa.PrivateKey{key(t, "rsa1024a"), key(t, "rsa2048a"), key(t, "rsa2049")}
	const callers = 6
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for g := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- func() error {
				k, n := keys[g%len(keys)], 1+3*g
				digests := make([][]byte, n)
				for i := range digests {
					d := sha256.Sum256(fmt.Appendf(nil, "caller %d element %d", g, i))
					digests[i] = d[:]
				}
				for range 2 {
					sigs, err := e.SignPKCS1v15(repeat(k, n), crypto.SHA256, digests)
					if err != nil {
						return err
					}
					for i, sig := range sigs {
						if err := stdrsa.VerifyPKCS1v15(&k.PublicKey, crypto.SHA256, digests[i], sig); err != nil {
							return fmt.Errorf("caller %d element %d: %w", g, i, err)
						}
					}
					if err := asErrors(e.VerifyPKCS1v15(repeat(&k.PublicKey, n), crypto.SHA256, digests, sigs)); err != nil {
						return err
					}
				}
				return nil
			}()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}
