package rsa_test

import (
	"crypto"
	stdrsa "crypto/rsa"
	"crypto/sha256"
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
			require.True(t, e.InjectDeviceFault(bad))
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
