package main

import (
	"bytes"
	"context"
	stdecdh "crypto/ecdh"
	stdecdsa "crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	mrand "math/rand/v2"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/ecdsa"
)

var _ = soakOperations.add(soakOperation{name: "ecdsa", algorithm: "ecdsa",
	family: func(_ *soakRun, _ string, rng *mrand.Rand) (soakFamily, error) { return newECDSASoak(rng) }})

// ecdsaSoakKeys is the number of P-256 keys of the ECDSA soak.
const ecdsaSoakKeys = 16

// ecdsaSoak is P-256 in the soak: ECDSA signatures verified by
// crypto/ecdsa (they are randomized), verdicts on valid and altered
// signatures compared with crypto/ecdsa's, and ECDH secrets compared with
// crypto/ecdh's.
type ecdsaSoak struct {
	keys  []*stdecdsa.PrivateKey
	cases []ecdsaSoakCase
}

// ecdsaSoakCase is a hash signed by keys[key] (crypto/ecdsa), an altered
// copy of the signature with crypto/ecdsa's verdict on it, and an ECDH
// case: a private key, a peer's public key and their secret.
type ecdsaSoakCase struct {
	key                int
	hash, sig          []byte
	altered            []byte
	alteredValid       bool
	priv, peer, secret []byte
}

func newECDSASoak(rng *mrand.Rand) (*ecdsaSoak, error) {
	c := &soakCheck{rng: rng}
	s := &ecdsaSoak{}
	for range ecdsaSoakKeys {
		k, err := stdecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, err
		}
		s.keys = append(s.keys, k)
	}
	for i := range soakCases {
		k := ecdsaSoakCase{key: i % len(s.keys), hash: c.bytes(32)}
		key := s.keys[k.key]
		var err error
		if k.sig, err = stdecdsa.SignASN1(rand.Reader, key, k.hash); err != nil {
			return nil, err
		}
		k.altered = bytes.Clone(k.sig)
		k.altered[len(k.altered)-1-rng.IntN(8)] ^= 1 << rng.IntN(8) // in s: the encoding stays well formed
		k.alteredValid = stdecdsa.VerifyASN1(&key.PublicKey, k.hash, k.altered)
		a, err := stdecdh.P256().GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		b, err := stdecdh.P256().GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		if k.secret, err = a.ECDH(b.PublicKey()); err != nil {
			return nil, err
		}
		k.priv, k.peer = a.Bytes(), b.PublicKey().Bytes()
		s.cases = append(s.cases, k)
	}
	return s, nil
}

func (s *ecdsaSoak) newEngine(d *device.Device) (soakEngine, error) {
	e, err := ecdsa.NewEngine(d)
	if err != nil {
		return nil, err
	}
	return &ecdsaSoakEngine{Engine: e, soak: s}, nil
}

type ecdsaSoakEngine struct {
	*ecdsa.Engine
	soak *ecdsaSoak
}

// call signs n hashes, verifies n signatures (one in four altered) or
// computes n ECDH secrets.
func (e *ecdsaSoakEngine) call(c *soakCheck, n int) error {
	cases := make([]*ecdsaSoakCase, n)
	keys, hashes := make([]*stdecdsa.PrivateKey, n), make([][]byte, n)
	for i := range cases {
		cases[i] = &e.soak.cases[c.rng.IntN(len(e.soak.cases))]
		keys[i], hashes[i] = e.soak.keys[cases[i].key], cases[i].hash
	}
	switch c.rng.IntN(3) {
	case 0:
		sigs, err := e.SignASN1(nil, keys, hashes)
		if err != nil {
			return err
		}
		batch.Parallel(n, 16, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				e.soak.checkSign(c, cases[i], sigs[i], "Engine")
			}
		})
	case 1:
		pubs, sigs, altered := make([]*stdecdsa.PublicKey, n), make([][]byte, n), make([]bool, n)
		for i, k := range cases {
			pubs[i], sigs[i] = &keys[i].PublicKey, k.sig
			if c.rng.IntN(4) == 0 {
				sigs[i], altered[i] = k.altered, true
			}
		}
		verdicts, err := e.VerifyASN1(pubs, hashes, sigs)
		if err != nil {
			return err
		}
		for i, k := range cases {
			e.soak.checkVerify(c, k, altered[i], verdicts[i], "Engine")
		}
	default:
		privs, peers := make([][]byte, n), make([][]byte, n)
		for i, k := range cases {
			privs[i], peers[i] = k.priv, k.peer
		}
		secrets, err := e.ECDH(privs, peers)
		if err != nil {
			return err
		}
		for i, k := range cases {
			e.soak.checkECDH(c, k, secrets[i], "Engine")
		}
	}
	return nil
}

// checkSign verifies a signature with crypto/ecdsa. It is safe for
// concurrent use.
func (s *ecdsaSoak) checkSign(c *soakCheck, k *ecdsaSoakCase, sig []byte, via string) {
	key := s.keys[k.key]
	if !stdecdsa.VerifyASN1(&key.PublicKey, k.hash, sig) {
		der, _ := x509.MarshalECPrivateKey(key)
		c.mismatch(via+" signature does not verify with crypto/ecdsa", hexMap("key", der, "hash", k.hash), hexMap("signature", sig), nil)
	}
}

func (s *ecdsaSoak) checkVerify(c *soakCheck, k *ecdsaSoakCase, altered, verdict bool, via string) {
	sig, want := k.sig, true
	if altered {
		sig, want = k.altered, k.alteredValid
	}
	if verdict != want {
		pub, _ := x509.MarshalPKIXPublicKey(&s.keys[k.key].PublicKey)
		c.mismatch(via+" verdict differs from crypto/ecdsa's", hexMap("public", pub, "hash", k.hash, "signature", sig),
			hexMap("valid", verdict), hexMap("valid", want))
	}
}

func (s *ecdsaSoak) checkECDH(c *soakCheck, k *ecdsaSoakCase, secret []byte, via string) {
	if !bytes.Equal(secret, k.secret) {
		c.mismatch(via+" P-256 ECDH secret differs from crypto/ecdh's", hexMap("priv", k.priv, "peer", k.peer), hexMap("secret", secret), hexMap("secret", k.secret))
	}
}

func (e *ecdsaSoakEngine) newServer(opts batch.Options) (soakServer, error) {
	srv, err := ecdsa.NewServer(opts, e.Engine)
	if err != nil {
		return nil, err
	}
	return &ecdsaSoakServer{Server: srv, soak: e.soak}, nil
}

type ecdsaSoakServer struct {
	*ecdsa.Server
	soak *ecdsaSoak
}

// call signs one hash, verifies one signature (altered one time in four)
// or computes one ECDH secret.
func (s *ecdsaSoakServer) call(c *soakCheck) error {
	k := &s.soak.cases[c.rng.IntN(len(s.soak.cases))]
	key := s.soak.keys[k.key]
	switch c.rng.IntN(3) {
	case 0:
		sig, err := s.SignASN1(context.Background(), rand.Reader, key, k.hash)
		if err != nil {
			return err
		}
		s.soak.checkSign(c, k, sig, "Server")
	case 1:
		sig, altered := k.sig, c.rng.IntN(4) == 0
		if altered {
			sig = k.altered
		}
		verdict, err := s.VerifyASN1(context.Background(), &key.PublicKey, k.hash, sig)
		if err != nil {
			return err
		}
		s.soak.checkVerify(c, k, altered, verdict, "Server")
	default:
		secret, err := s.ECDH(context.Background(), k.priv, k.peer)
		if err != nil {
			return err
		}
		s.soak.checkECDH(c, k, secret, "Server")
	}
	return nil
}
