package main

import (
	"bytes"
	"context"
	"fmt"
	mrand "math/rand/v2"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/mlkem"
)

var _ = soakOperations.add(
	soakOperation{name: "mlkem768", algorithm: "mlkem", family: mlkemSoakFamily},
	soakOperation{name: "mlkem1024", algorithm: "mlkem", family: mlkemSoakFamily},
)

// mlkemSoakFamily is the soak of ML-KEM-768 or ML-KEM-1024 (name).
func mlkemSoakFamily(_ *soakRun, name string, rng *mrand.Rand) (soakFamily, error) {
	return newMLKEMSoak(mlkemSetOf(name), rng)
}

// mlkemSoak is ML-KEM in the soak: encapsulation keys and decapsulations
// (of valid and of corrupted ciphertexts) compared with crypto/mlkem's,
// and encapsulations, whose randomness is fresh, decapsulated by
// crypto/mlkem, which must give their shared keys.
type mlkemSoak struct {
	set   *mlkemSet
	cases []mlkemSoakCase
}

// mlkemSoakCase is a seed, crypto/mlkem's key of it, an encapsulation to
// it (ciphertext and shared key), and a copy of the ciphertext with one
// bit changed with crypto/mlkem's decapsulation of it (the implicit
// rejection).
type mlkemSoakCase struct {
	seed, ek            []byte
	dk                  stdDecapsulator
	ct, shared          []byte
	corrupted, rejected []byte
}

// newMLKEMSoak makes the cases of s from rng (the encapsulations'
// randomness too, where crypto/mlkem/mlkemtest takes it: Go 1.26).
func newMLKEMSoak(s *mlkemSet, rng *mrand.Rand) (*mlkemSoak, error) {
	c := &soakCheck{rng: rng}
	soak := &mlkemSoak{set: s}
	for range soakCases {
		k := mlkemSoakCase{seed: c.bytes(mlkem.SeedSize)}
		dk, ek, err := s.stdKey(k.seed)
		if err != nil {
			return nil, err
		}
		k.dk, k.ek = dk, ek.Bytes()
		if stdEncapsulateDerandomized != nil {
			if k.shared, k.ct, err = stdEncapsulateDerandomized(ek, c.bytes(mlkem.RandomnessSize)); err != nil {
				return nil, err
			}
		} else {
			k.shared, k.ct = ek.Encapsulate()
		}
		k.corrupted = bytes.Clone(k.ct)
		k.corrupted[rng.IntN(len(k.corrupted))] ^= 1 << rng.IntN(8)
		if k.rejected, err = dk.Decapsulate(k.corrupted); err != nil {
			return nil, err
		}
		soak.cases = append(soak.cases, k)
	}
	return soak, nil
}

func (s *mlkemSoak) newEngine(d *device.Device) (soakEngine, error) {
	e, err := mlkem.NewEngine(d)
	if err != nil {
		return nil, err
	}
	return &mlkemSoakEngine{Engine: e, soak: s}, nil
}

type mlkemSoakEngine struct {
	*mlkem.Engine
	soak *mlkemSoak
}

// pick draws the cases of a call of n elements: one in four the case of
// the element before (the requests of one key, which share its
// expansion), the others at random.
func (s *mlkemSoak) pick(c *soakCheck, n int) []*mlkemSoakCase {
	cases := make([]*mlkemSoakCase, n)
	for i := range cases {
		if i > 0 && c.rng.IntN(4) == 0 {
			cases[i] = cases[i-1]
		} else {
			cases[i] = &s.cases[c.rng.IntN(len(s.cases))]
		}
	}
	return cases
}

// call computes n encapsulation keys (one call in four), n encapsulations
// (one in four) or n decapsulations (one in four of a corrupted
// ciphertext).
func (e *mlkemSoakEngine) call(c *soakCheck, n int) error {
	s := e.soak
	cases := s.pick(c, n)
	seeds, eks := make([][]byte, n), make([][]byte, n)
	for i, k := range cases {
		seeds[i], eks[i] = k.seed, k.ek
	}
	switch c.rng.IntN(4) {
	case 0:
		got, err := s.set.keyGen(e.Engine, seeds)
		if err != nil {
			return err
		}
		for i, k := range cases {
			s.checkKeyGen(c, k, got[i], "Engine")
		}
	case 1:
		shared, cts, err := s.set.encapsulate(e.Engine, eks)
		if err != nil {
			return err
		}
		batch.Parallel(n, 16, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				s.checkEncapsulate(c, cases[i], shared[i], cts[i], "Engine")
			}
		})
	default:
		cts, corrupted := make([][]byte, n), make([]bool, n)
		for i, k := range cases {
			cts[i] = k.ct
			if c.rng.IntN(4) == 0 {
				cts[i], corrupted[i] = k.corrupted, true
			}
		}
		got, err := s.set.decapsulate(e.Engine, seeds, cts)
		if err != nil {
			return err
		}
		for i, k := range cases {
			s.checkDecapsulate(c, k, corrupted[i], got[i], "Engine")
		}
	}
	return nil
}

func (s *mlkemSoak) checkKeyGen(c *soakCheck, k *mlkemSoakCase, ek []byte, via string) {
	if !bytes.Equal(ek, k.ek) {
		c.mismatch(via+" encapsulation key differs from crypto/mlkem's", hexMap("seed", k.seed), hexMap("encapsulation key", ek), hexMap("encapsulation key", k.ek))
	}
}

// checkEncapsulate checks an encapsulation to k's key: crypto/mlkem
// decapsulates its ciphertext to its shared key.
func (s *mlkemSoak) checkEncapsulate(c *soakCheck, k *mlkemSoakCase, shared, ct []byte, via string) {
	want, err := k.dk.Decapsulate(ct)
	if err != nil || !bytes.Equal(shared, want) {
		c.mismatch(fmt.Sprintf("%s encapsulation: crypto/mlkem decapsulates its ciphertext to another shared key (%v)", via, err),
			hexMap("seed", k.seed, "ciphertext", ct), hexMap("shared key", shared), hexMap("shared key", want))
	}
}

// checkDecapsulate checks the decapsulation of k's ciphertext (or of its
// corrupted copy).
func (s *mlkemSoak) checkDecapsulate(c *soakCheck, k *mlkemSoakCase, corrupted bool, got []byte, via string) {
	ct, want := k.ct, k.shared
	if corrupted {
		ct, want = k.corrupted, k.rejected
	}
	if !bytes.Equal(got, want) {
		c.mismatch(via+" decapsulation differs from crypto/mlkem's", hexMap("seed", k.seed, "ciphertext", ct, "corrupted", corrupted),
			hexMap("shared key", got), hexMap("shared key", want))
	}
}

func (e *mlkemSoakEngine) newServer(opts batch.Options) (soakServer, error) {
	srv, err := mlkem.NewServer(opts, e.Engine)
	if err != nil {
		return nil, err
	}
	return &mlkemSoakServer{Server: srv, soak: e.soak}, nil
}

type mlkemSoakServer struct {
	*mlkem.Server
	soak *mlkemSoak
}

// call computes one encapsulation key (one call in four), one
// encapsulation (one in four) or one decapsulation (one in four of a
// corrupted ciphertext).
func (s *mlkemSoakServer) call(c *soakCheck) error {
	soak := s.soak
	k := &soak.cases[c.rng.IntN(len(soak.cases))]
	ctx, p := context.Background(), soak.set.params
	switch c.rng.IntN(4) {
	case 0:
		ek, err := s.KeyGen(ctx, p, k.seed)
		if err != nil {
			return err
		}
		soak.checkKeyGen(c, k, ek, "Server")
	case 1:
		shared, ct, err := s.Encapsulate(ctx, p, k.ek)
		if err != nil {
			return err
		}
		soak.checkEncapsulate(c, k, shared, ct, "Server")
	default:
		ct, corrupted := k.ct, c.rng.IntN(4) == 0
		if corrupted {
			ct = k.corrupted
		}
		got, err := s.Decapsulate(ctx, p, k.seed, ct)
		if err != nil {
			return err
		}
		soak.checkDecapsulate(c, k, corrupted, got, "Server")
	}
	return nil
}
