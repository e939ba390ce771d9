package ed25519

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/gpucrypto/gpucrypto/batch"
)

// selfTestVectors are RFC 8032 §7.1 TEST 1 and TEST 2 (as in
// testvectors/rfc8032.json): the seed (the RFC's SECRET KEY), the public
// key, the message and the signature.
var selfTestVectors = []struct{ name, seed, pub, msg, sig string }{
	{"TEST 1",
		"9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
		"d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
		"",
		"e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"},
	{"TEST 2",
		"4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
		"3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
		"72",
		"92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"},
}

// SelfTest checks e with known answers, RFC 8032 §7.1 TEST 1 and TEST 2:
// the public keys of the seeds (NewKeysFromSeeds), the signatures of the
// messages (Sign), byte for byte, and the verdicts of Verify on the RFC's
// signatures, which must be valid, and on a corrupted copy of each (one
// bit of R, one bit of S), which must not be. A device engine must answer
// from the device: while the self-test runs, e's calls are routed to the
// device (SetRoute: call it before e serves others), and a CPU fallback
// during the self-test is an error, as is a signature that the kernel's
// own fault check refused (its second computation of R disagrees with the
// first: a fault, or a check that cannot pass on this device).
func SelfTest(e *Engine) error { return e.core.SelfTest(func() error { return selfTest(e) }) }

// selfTest is SelfTest's test.
func selfTest(e *Engine) error {
	if e.Device() != nil {
		defer e.SetRoute(e.core.Route())
		e.SetRoute(batch.RouteDevice)
	}
	before, faults := e.core.SelfTestStats().Fallbacks, e.core.SelfTestStats().Faults
	n := len(selfTestVectors)
	seeds := make([][]byte, n)
	pubs := make([]ed25519.PublicKey, n)
	msgs := make([][]byte, n)
	sigs := make([][]byte, n)
	for i, v := range selfTestVectors {
		seeds[i], pubs[i], msgs[i], sigs[i] = selfTestHex(v.seed), selfTestHex(v.pub), selfTestHex(v.msg), selfTestHex(v.sig)
	}
	keys, err := e.NewKeysFromSeeds(seeds)
	if err != nil {
		return fmt.Errorf("ed25519: self-test public keys: %w", err)
	}
	for i, v := range selfTestVectors {
		if !bytes.Equal(keys[i][:SeedSize], seeds[i]) || !bytes.Equal(keys[i][SeedSize:], pubs[i]) {
			return fmt.Errorf("ed25519: self-test RFC 8032 %s: private key %x, want the seed followed by the public key %x", v.name, keys[i], pubs[i])
		}
	}
	got, err := e.Sign(keys, msgs, nil)
	if err != nil {
		return fmt.Errorf("ed25519: self-test signatures: %w", err)
	}
	for i, v := range selfTestVectors {
		if !bytes.Equal(got[i], sigs[i]) {
			return fmt.Errorf("ed25519: self-test RFC 8032 %s: signature %x, want %x", v.name, got[i], sigs[i])
		}
	}
	if refused := e.core.SelfTestStats().Faults - faults; refused != 0 {
		return fmt.Errorf("ed25519: self-test signatures: the device's fault check refused %d of %d", refused, n)
	}
	// The RFC's signatures, then each with one bit changed: in R for the
	// first, in S (a low bit: S stays below L, so the curve arithmetic,
	// not the host's range check, must refuse it) for the others.
	vpubs := append(make([]ed25519.PublicKey, 0, 2*n), pubs...)
	vmsgs := append(make([][]byte, 0, 2*n), msgs...)
	vsigs := append(make([][]byte, 0, 2*n), sigs...)
	for i := range n {
		bad := bytes.Clone(sigs[i])
		if i == 0 {
			bad[5] ^= 0x10
		} else {
			bad[32] ^= 0x01
		}
		vpubs, vmsgs, vsigs = append(vpubs, pubs[i]), append(vmsgs, msgs[i]), append(vsigs, bad)
	}
	verdicts, err := e.Verify(vpubs, vmsgs, vsigs, nil)
	if err != nil {
		return fmt.Errorf("ed25519: self-test verification: %w", err)
	}
	for i, v := range selfTestVectors {
		if !verdicts[i] {
			return fmt.Errorf("ed25519: self-test RFC 8032 %s: Verify refused the RFC's signature", v.name)
		}
		if verdicts[n+i] {
			return fmt.Errorf("ed25519: self-test RFC 8032 %s: Verify accepted a corrupted signature %x", v.name, vsigs[n+i])
		}
	}
	if e.core.SelfTestStats().Fallbacks != before {
		return errors.New("ed25519: self-test: the device failed and the CPU answered")
	}
	return nil
}

func selfTestHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic("ed25519: bad embedded vector: " + err.Error())
	}
	return b
}
