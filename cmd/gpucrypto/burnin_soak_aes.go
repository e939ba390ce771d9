package main

import (
	"bytes"
	"context"
	stdaes "crypto/aes"
	"crypto/cipher"
	"errors"
	mrand "math/rand/v2"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
)

var _ = soakOperations.add(soakOperation{name: "aes-gcm", algorithm: "aes",
	family: func(_ *soakRun, _ string, rng *mrand.Rand) (soakFamily, error) { return newAESSoak(rng) }})

// aesSoakKeys is the number of AES keys of the AES soak (128, 192 and 256
// bits).
const aesSoakKeys = 32

// aesSoak is AES-GCM in the soak: messages of random lengths sealed and
// compared with crypto/cipher's, crypto/cipher's ciphertexts opened, and
// altered ones refused (aes.ErrOpen).
type aesSoak struct {
	keys []aesKey
}

func newAESSoak(rng *mrand.Rand) (*aesSoak, error) {
	c := &soakCheck{rng: rng}
	s := &aesSoak{}
	for i := range aesSoakKeys {
		raw := c.bytes([]int{16, 24, 32}[i%3])
		k, err := aes.NewKey(raw)
		if err != nil {
			return nil, err
		}
		block, err := stdaes.NewCipher(raw)
		if err != nil {
			return nil, err
		}
		s.keys = append(s.keys, aesKey{raw: raw, key: k, block: block})
	}
	return s, nil
}

// aesSoakCase is one random message: its key, nonce, additional data and
// plaintext, and crypto/cipher's ciphertext (with the tag).
type aesSoakCase struct {
	key                       *aesKey
	nonce, aad, plain, sealed []byte
}

// newCase draws a message: mostly up to 2 KB, one in 64 up to 16 KB; a
// nonce of 12 bytes unless any is allowed (the Engine's calls), one time
// in eight.
func (s *aesSoak) newCase(c *soakCheck, anyNonce bool) aesSoakCase {
	k := &s.keys[c.rng.IntN(len(s.keys))]
	nonceSize := 12
	if anyNonce && c.rng.IntN(8) == 0 {
		nonceSize = 1 + c.rng.IntN(32)
	}
	most := 2048
	if c.rng.IntN(64) == 0 {
		most = 16384
	}
	m := aesSoakCase{key: k, nonce: c.bytes(nonceSize), aad: c.bytes(c.rng.IntN(33)), plain: c.bytes(c.rng.IntN(most + 1))}
	aead, _ := cipher.NewGCMWithNonceSize(k.block, nonceSize)
	m.sealed = aead.Seal(nil, m.nonce, m.plain, m.aad)
	return m
}

func (m *aesSoakCase) input() map[string]string {
	return hexMap("key", m.key.raw, "nonce", m.nonce, "aad", m.aad, "plaintext", m.plain)
}

func (s *aesSoak) newEngine(d *device.Device) (soakEngine, error) {
	e, err := aes.NewEngine(d)
	if errors.Is(err, aes.ErrCPUDevice) {
		e, err = aes.CPUEngine(), nil // AES refuses CPU devices: the soak runs its CPU engine there
	}
	if err != nil {
		return nil, err
	}
	return &aesSoakEngine{Engine: e, soak: s}, nil
}

type aesSoakEngine struct {
	*aes.Engine
	soak *aesSoak
}

// call seals n messages, or opens n ciphertexts, one in eight altered.
func (e *aesSoakEngine) call(c *soakCheck, n int) error {
	cases := make([]aesSoakCase, n)
	msgs := make([]aes.Message, n)
	for i := range cases {
		cases[i] = e.soak.newCase(c, true)
		msgs[i] = aes.Message{Key: cases[i].key.key, Nonce: cases[i].nonce, AAD: cases[i].aad, Data: cases[i].plain}
	}
	if c.rng.IntN(2) == 0 {
		sealed, err := e.Seal(msgs)
		if err != nil {
			return err
		}
		for i := range cases {
			checkSealed(c, &cases[i], sealed[i], "Engine")
		}
		return nil
	}
	altered := make([]bool, n)
	for i := range cases {
		msgs[i].Data = cases[i].sealed
		if c.rng.IntN(8) == 0 {
			msgs[i].Data = bytes.Clone(cases[i].sealed)
			msgs[i].Data[c.rng.IntN(len(msgs[i].Data))] ^= 1 << c.rng.IntN(8)
			altered[i] = true
		}
	}
	opened, err := e.Open(msgs)
	errs, ok := elementErrors(err, n)
	if !ok {
		return err
	}
	for i := range cases {
		checkOpened(c, &cases[i], altered[i], opened[i], errs[i], "Engine")
	}
	return nil
}

// checkSealed compares a ciphertext with crypto/cipher's.
func checkSealed(c *soakCheck, m *aesSoakCase, sealed []byte, via string) {
	if !bytes.Equal(sealed, m.sealed) {
		c.mismatch(via+" GCM ciphertext differs from crypto/cipher's", m.input(), hexMap("sealed", sealed), hexMap("sealed", m.sealed))
	}
}

// checkOpened judges the opening of m's ciphertext (altered or not).
func checkOpened(c *soakCheck, m *aesSoakCase, altered bool, opened []byte, err error, via string) {
	switch {
	case altered && !errors.Is(err, aes.ErrOpen):
		c.mismatch(via+" opened an altered ciphertext", m.input(), hexMap("plaintext", opened, "error", err), hexMap("error", aes.ErrOpen))
	case !altered && err != nil:
		c.mismatch(via+" refused crypto/cipher's ciphertext", m.input(), hexMap("error", err), nil)
	case !altered && !bytes.Equal(opened, m.plain):
		c.mismatch(via+" opened crypto/cipher's ciphertext to another plaintext", m.input(), hexMap("plaintext", opened), hexMap("plaintext", m.plain))
	}
}

func (e *aesSoakEngine) newServer(opts batch.Options) (soakServer, error) {
	srv, err := aes.NewServer(opts, e.Engine)
	if err != nil {
		return nil, err
	}
	return &aesSoakServer{Server: srv, soak: e.soak}, nil
}

type aesSoakServer struct {
	*aes.Server
	soak *aesSoak
}

// call seals one message or opens one ciphertext (altered one time in
// eight).
func (s *aesSoakServer) call(c *soakCheck) error {
	m := s.soak.newCase(c, false)
	if c.rng.IntN(2) == 0 {
		sealed, err := s.Seal(context.Background(), m.key.key, nil, m.nonce, m.plain, m.aad)
		if err != nil {
			return err
		}
		checkSealed(c, &m, sealed, "Server")
		return nil
	}
	data, altered := m.sealed, c.rng.IntN(8) == 0
	if altered {
		data = bytes.Clone(m.sealed)
		data[c.rng.IntN(len(data))] ^= 1 << c.rng.IntN(8)
	}
	opened, err := s.Open(context.Background(), m.key.key, nil, m.nonce, data, m.aad)
	if err != nil && !(altered && errors.Is(err, aes.ErrOpen)) {
		return err
	}
	checkOpened(c, &m, altered, opened, err, "Server")
	return nil
}
