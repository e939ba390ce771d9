package main

import (
	"bytes"
	"crypto"
	"crypto/rand"
	stdrsa "crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"errors"
	mrand "math/rand/v2"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/rsa"
)

// The RSA soak: rsa2048 by default, any size burnin takes (rsaNNNN)
// with --ops.
var _ = soakOperations.add(soakOperation{name: "rsa2048", algorithm: "rsa", pattern: "rsaNNNN", patternHelp: "any RSA size burnin takes",
	family: func(r *soakRun, name string, _ *mrand.Rand) (soakFamily, error) {
		bits, _ := rsaOpBits(name)
		keys, err := r.keys.get(bits)
		if err != nil {
			return nil, err
		}
		return newRSASoak(keys)
	}})

// rsaSoakCases is the number of PKCS #1 v1.5 signatures the RSA soak
// makes with crypto/rsa at the start (fewer than soakCases: each costs a
// private-key operation on the CPU).
const rsaSoakCases = 64

// rsaSoak is RSA signing and verification in the soak: PKCS #1 v1.5
// signatures compared with crypto/rsa's (deterministic), PSS signatures
// verified by crypto/rsa, and the device's verification of valid and
// altered signatures.
type rsaSoak struct {
	keys  []*stdrsa.PrivateKey
	cases []rsaSoakCase
}

type rsaSoakCase struct {
	key       int // index in keys
	digest    []byte
	signature []byte // PKCS #1 v1.5, crypto/rsa's
}

func newRSASoak(keys []*stdrsa.PrivateKey) (*rsaSoak, error) {
	s := &rsaSoak{keys: keys}
	for i := range rsaSoakCases {
		digest := sha256.Sum256([]byte{byte(i), byte(i >> 8)})
		sig, err := stdrsa.SignPKCS1v15(nil, keys[i%len(keys)], crypto.SHA256, digest[:])
		if err != nil {
			return nil, err
		}
		s.cases = append(s.cases, rsaSoakCase{key: i % len(keys), digest: digest[:], signature: sig})
	}
	return s, nil
}

func (s *rsaSoak) newEngine(d *device.Device) (soakEngine, error) {
	e, err := rsa.NewEngine(d)
	if err != nil {
		return nil, err
	}
	return &rsaSoakEngine{Engine: e, soak: s}, nil
}

type rsaSoakEngine struct {
	*rsa.Engine
	soak *rsaSoak
}

// pss is the PSS setting of the soak: the salt as long as the hash, as
// TLS 1.3 signs.
var pss = &stdrsa.PSSOptions{SaltLength: stdrsa.PSSSaltLengthEqualsHash, Hash: crypto.SHA256}

// call signs n digests (PKCS #1 v1.5 or PSS) or verifies n signatures,
// one in eight altered.
func (e *rsaSoakEngine) call(c *soakCheck, n int) error {
	cases := make([]*rsaSoakCase, n)
	keys, pubs, digests := make([]*stdrsa.PrivateKey, n), make([]*stdrsa.PublicKey, n), make([][]byte, n)
	for i := range cases {
		cases[i] = &e.soak.cases[c.rng.IntN(len(e.soak.cases))]
		keys[i] = e.soak.keys[cases[i].key]
		pubs[i], digests[i] = &keys[i].PublicKey, cases[i].digest
	}
	switch c.rng.IntN(3) {
	case 0:
		sigs, err := e.SignPKCS1v15(keys, crypto.SHA256, digests)
		if err != nil {
			return err
		}
		for i, k := range cases {
			e.soak.checkPKCS1(c, k, sigs[i], "Engine")
		}
	case 1:
		sigs, err := e.SignPSS(nil, keys, crypto.SHA256, digests, pss)
		if err != nil {
			return err
		}
		batch.Parallel(n, 16, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				e.soak.checkPSS(c, cases[i], sigs[i], "Engine")
			}
		})
	default:
		sigs := make([][]byte, n)
		altered := make([]bool, n)
		for i, k := range cases {
			sigs[i] = k.signature
			if c.rng.IntN(8) == 0 {
				sigs[i] = bytes.Clone(k.signature)
				sigs[i][len(sigs[i])-1-c.rng.IntN(len(sigs[i])/2)] ^= 1 << c.rng.IntN(8) // the lower half: still below the modulus
				altered[i] = true
			}
		}
		valid, err := e.VerifyPKCS1v15(pubs, crypto.SHA256, digests, sigs)
		errs, ok := elementErrors(err, n)
		if !ok {
			return err
		}
		for i, v := range valid { // a refused signature, as crypto/rsa's error
			if !v && errs[i] == nil {
				errs[i] = rsa.ErrVerification
			}
		}
		for i, k := range cases {
			switch {
			case altered[i] && !errors.Is(errs[i], rsa.ErrVerification):
				c.mismatch("the Engine accepted an altered signature", e.soak.input(k, sigs[i]), hexMap("error", errs[i]), hexMap("error", rsa.ErrVerification))
			case !altered[i] && errs[i] != nil:
				c.mismatch("the Engine refused a valid signature", e.soak.input(k, sigs[i]), hexMap("error", errs[i]), nil)
			}
		}
	}
	return nil
}

// input is a case for the failures file: the key, the digest, and the
// signature checked.
func (s *rsaSoak) input(k *rsaSoakCase, sig []byte) map[string]string {
	return hexMap("key", x509.MarshalPKCS1PrivateKey(s.keys[k.key]), "sha256", k.digest, "signature", sig)
}

// checkPKCS1 compares a PKCS #1 v1.5 signature with crypto/rsa's.
func (s *rsaSoak) checkPKCS1(c *soakCheck, k *rsaSoakCase, sig []byte, via string) {
	if !bytes.Equal(sig, k.signature) {
		c.mismatch(via+" PKCS #1 v1.5 signature differs from crypto/rsa's", s.input(k, nil), hexMap("signature", sig), hexMap("signature", k.signature))
	}
}

// checkPSS verifies a PSS signature with crypto/rsa. It is safe for
// concurrent use.
func (s *rsaSoak) checkPSS(c *soakCheck, k *rsaSoakCase, sig []byte, via string) {
	if err := stdrsa.VerifyPSS(&s.keys[k.key].PublicKey, crypto.SHA256, k.digest, sig, pss); err != nil {
		c.mismatch(via+" PSS signature does not verify with crypto/rsa", s.input(k, sig), hexMap("error", err), nil)
	}
}

func (e *rsaSoakEngine) newServer(opts batch.Options) (soakServer, error) {
	srv, err := rsa.NewServer(opts, e.Engine)
	if err != nil {
		return nil, err
	}
	s := &rsaSoakServer{Server: srv, soak: e.soak}
	for _, k := range e.soak.keys {
		signer, err := srv.Signer(k)
		if err != nil {
			srv.Close()
			return nil, err
		}
		s.signers = append(s.signers, signer)
	}
	return s, nil
}

type rsaSoakServer struct {
	*rsa.Server
	soak    *rsaSoak
	signers []*rsa.Signer // one per key
}

// call signs one digest through a Signer: PKCS #1 v1.5 (crypto.Signer's
// Sign with crypto.SHA256) or, one in four, PSS.
func (s *rsaSoakServer) call(c *soakCheck) error {
	k := &s.soak.cases[c.rng.IntN(len(s.soak.cases))]
	if c.rng.IntN(4) == 0 {
		sig, err := s.signers[k.key].Sign(rand.Reader, k.digest, pss)
		if err != nil {
			return err
		}
		s.soak.checkPSS(c, k, sig, "Server")
		return nil
	}
	sig, err := s.signers[k.key].Sign(rand.Reader, k.digest, crypto.SHA256)
	if err != nil {
		return err
	}
	s.soak.checkPKCS1(c, k, sig, "Server")
	return nil
}
