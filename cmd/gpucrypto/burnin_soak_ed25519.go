package main

import (
	"bytes"
	"context"
	stded25519 "crypto/ed25519"
	mrand "math/rand/v2"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/ed25519"
)

var _ = soakOperations.add(soakOperation{name: "ed25519", algorithm: "ed25519",
	family: func(_ *soakRun, _ string, rng *mrand.Rand) (soakFamily, error) { return newEd25519Soak(rng) }})

// ed25519Soak is Ed25519 in the soak: signatures compared with
// crypto/ed25519's (deterministic), and verdicts on valid and altered
// signatures compared with crypto/ed25519.Verify's.
type ed25519Soak struct {
	cases []ed25519SoakCase
}

// ed25519SoakCase is a key, a message, its signature and an altered copy
// of the signature with crypto/ed25519's verdict on it.
type ed25519SoakCase struct {
	key          stded25519.PrivateKey
	msg, sig     []byte
	altered      []byte
	alteredValid bool
}

func newEd25519Soak(rng *mrand.Rand) (*ed25519Soak, error) {
	c := &soakCheck{rng: rng}
	s := &ed25519Soak{}
	for range soakCases {
		key := stded25519.NewKeyFromSeed(c.bytes(stded25519.SeedSize))
		msg := c.bytes(rng.IntN(256))
		sig := stded25519.Sign(key, msg)
		altered := bytes.Clone(sig)
		altered[rng.IntN(len(altered))] ^= 1 << rng.IntN(8)
		s.cases = append(s.cases, ed25519SoakCase{key: key, msg: msg, sig: sig, altered: altered,
			alteredValid: stded25519.Verify(key.Public().(stded25519.PublicKey), msg, altered)})
	}
	return s, nil
}

func (s *ed25519Soak) newEngine(d *device.Device) (soakEngine, error) {
	e, err := ed25519.NewEngine(d)
	if err != nil {
		return nil, err
	}
	return &ed25519SoakEngine{Engine: e, soak: s}, nil
}

type ed25519SoakEngine struct {
	*ed25519.Engine
	soak *ed25519Soak
}

// call signs n messages, or verifies n signatures, one in four altered.
func (e *ed25519SoakEngine) call(c *soakCheck, n int) error {
	cases := make([]*ed25519SoakCase, n)
	keys, msgs := make([]stded25519.PrivateKey, n), make([][]byte, n)
	for i := range cases {
		cases[i] = &e.soak.cases[c.rng.IntN(len(e.soak.cases))]
		keys[i], msgs[i] = cases[i].key, cases[i].msg
	}
	if c.rng.IntN(2) == 0 {
		sigs, err := e.Sign(keys, msgs, nil)
		if err != nil {
			return err
		}
		for i, k := range cases {
			e.soak.checkSign(c, k, sigs[i], "Engine")
		}
		return nil
	}
	pubs, sigs, altered := make([]stded25519.PublicKey, n), make([][]byte, n), make([]bool, n)
	for i, k := range cases {
		pubs[i], sigs[i] = k.key.Public().(stded25519.PublicKey), k.sig
		if c.rng.IntN(4) == 0 {
			sigs[i], altered[i] = k.altered, true
		}
	}
	verdicts, err := e.Verify(pubs, msgs, sigs, nil)
	if err != nil {
		return err
	}
	for i, k := range cases {
		e.soak.checkVerify(c, k, altered[i], verdicts[i], "Engine")
	}
	return nil
}

func (s *ed25519Soak) checkSign(c *soakCheck, k *ed25519SoakCase, sig []byte, via string) {
	if !bytes.Equal(sig, k.sig) {
		c.mismatch(via+" signature differs from crypto/ed25519's", hexMap("key", k.key.Seed(), "msg", k.msg), hexMap("signature", sig), hexMap("signature", k.sig))
	}
}

func (s *ed25519Soak) checkVerify(c *soakCheck, k *ed25519SoakCase, altered, verdict bool, via string) {
	sig, want := k.sig, true
	if altered {
		sig, want = k.altered, k.alteredValid
	}
	if verdict != want {
		c.mismatch(via+" verdict differs from crypto/ed25519's", hexMap("key", k.key.Seed(), "msg", k.msg, "signature", sig),
			hexMap("valid", verdict), hexMap("valid", want))
	}
}

func (e *ed25519SoakEngine) newServer(opts batch.Options) (soakServer, error) {
	srv, err := ed25519.NewServer(opts, e.Engine)
	if err != nil {
		return nil, err
	}
	return &ed25519SoakServer{Server: srv, soak: e.soak}, nil
}

type ed25519SoakServer struct {
	*ed25519.Server
	soak *ed25519Soak
}

// call signs one message or verifies one signature (altered one time in
// four).
func (s *ed25519SoakServer) call(c *soakCheck) error {
	k := &s.soak.cases[c.rng.IntN(len(s.soak.cases))]
	if c.rng.IntN(2) == 0 {
		sig, err := s.Sign(context.Background(), k.key, k.msg, nil)
		if err != nil {
			return err
		}
		s.soak.checkSign(c, k, sig, "Server")
		return nil
	}
	sig, altered := k.sig, c.rng.IntN(4) == 0
	if altered {
		sig = k.altered
	}
	verdict, err := s.Verify(context.Background(), k.key.Public().(stded25519.PublicKey), k.msg, sig, nil)
	if err != nil {
		return err
	}
	s.soak.checkVerify(c, k, altered, verdict, "Server")
	return nil
}
