package main

import (
	"bytes"
	"context"
	stdecdh "crypto/ecdh"
	mrand "math/rand/v2"

	"github.com/cloudflare/circl/dh/x448"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/ecdh"
)

var _ = soakOperations.add(
	soakOperation{name: "x25519", algorithm: "ecdh", family: ecdhSoakFamily},
	soakOperation{name: "x448", algorithm: "ecdh", family: ecdhSoakFamily},
)

// ecdhSoakFamily is the soak of X25519 or X448 (name).
func ecdhSoakFamily(_ *soakRun, name string, rng *mrand.Rand) (soakFamily, error) {
	return newECDHSoak(name, rng)
}

// soakCases is the number of cases each operation of the soak computes
// on the CPU at the start and draws its calls' inputs from (with their
// answers): the checks of a large batch then cost a comparison per
// element.
const soakCases = 256

// ecdhSoak is X25519 or X448 in the soak: shared secrets and public keys
// of random private keys, against crypto/ecdh (X25519) and circl (X448).
type ecdhSoak struct {
	curve ecdh.Curve
	cases []ecdhSoakCase
}

// ecdhSoakCase is a private key, its public key, a peer's public key and
// the shared secret of the two.
type ecdhSoakCase struct {
	priv, pub, peer, secret []byte
}

func newECDHSoak(name string, rng *mrand.Rand) (*ecdhSoak, error) {
	s := &ecdhSoak{curve: ecdh.X25519()}
	if name == "x448" {
		s.curve = ecdh.X448()
	}
	c := &soakCheck{rng: rng}
	for range soakCases {
		var k ecdhSoakCase
		var err error
		if name == "x448" {
			var priv, peerPriv, pub, peer, secret x448.Key
			copy(priv[:], c.bytes(x448.Size))
			copy(peerPriv[:], c.bytes(x448.Size))
			x448.KeyGen(&pub, &priv)
			x448.KeyGen(&peer, &peerPriv)
			x448.Shared(&secret, &priv, &peer)
			k = ecdhSoakCase{priv: priv[:], pub: pub[:], peer: peer[:], secret: secret[:]}
		} else {
			k, err = x25519Case(c.bytes(32), c.bytes(32))
			if err != nil {
				return nil, err
			}
		}
		s.cases = append(s.cases, k)
	}
	return s, nil
}

// x25519Case is the case of private keys priv and peerPriv, computed by
// crypto/ecdh.
func x25519Case(priv, peerPriv []byte) (ecdhSoakCase, error) {
	a, err := stdecdh.X25519().NewPrivateKey(priv)
	if err != nil {
		return ecdhSoakCase{}, err
	}
	b, err := stdecdh.X25519().NewPrivateKey(peerPriv)
	if err != nil {
		return ecdhSoakCase{}, err
	}
	secret, err := a.ECDH(b.PublicKey())
	if err != nil {
		return ecdhSoakCase{}, err
	}
	return ecdhSoakCase{priv: priv, pub: a.PublicKey().Bytes(), peer: b.PublicKey().Bytes(), secret: secret}, nil
}

func (s *ecdhSoak) newEngine(d *device.Device) (soakEngine, error) {
	e, err := ecdh.NewEngine(d)
	if err != nil {
		return nil, err
	}
	return &ecdhSoakEngine{Engine: e, soak: s}, nil
}

type ecdhSoakEngine struct {
	*ecdh.Engine
	soak *ecdhSoak
}

// call computes n shared secrets or n public keys of random cases.
func (e *ecdhSoakEngine) call(c *soakCheck, n int) error {
	cases := make([]*ecdhSoakCase, n)
	privs, peers := make([][]byte, n), make([][]byte, n)
	for i := range cases {
		cases[i] = &e.soak.cases[c.rng.IntN(len(e.soak.cases))]
		privs[i], peers[i] = cases[i].priv, cases[i].peer
	}
	keygen := c.rng.IntN(4) == 0
	var got [][]byte
	var err error
	if keygen {
		got, err = e.PublicKeys(e.soak.curve, privs)
	} else {
		got, err = e.SharedSecrets(e.soak.curve, privs, peers)
	}
	if err != nil {
		return err
	}
	for i, k := range cases {
		e.soak.check(c, k, keygen, got[i], "Engine")
	}
	return nil
}

// check compares one result with the case's answer.
func (s *ecdhSoak) check(c *soakCheck, k *ecdhSoakCase, keygen bool, got []byte, via string) {
	want, what := k.secret, via+" shared secret differs from the CPU's"
	if keygen {
		want, what = k.pub, via+" public key differs from the CPU's"
	}
	if !bytes.Equal(got, want) {
		c.mismatch(what, hexMap("priv", k.priv, "peer", k.peer), hexMap("result", got), hexMap("result", want))
	}
}

func (e *ecdhSoakEngine) newServer(opts batch.Options) (soakServer, error) {
	srv, err := ecdh.NewServer(opts, e.Engine)
	if err != nil {
		return nil, err
	}
	return &ecdhSoakServer{Server: srv, soak: e.soak}, nil
}

type ecdhSoakServer struct {
	*ecdh.Server
	soak *ecdhSoak
}

// call computes one shared secret (or, one in four, one public key).
func (s *ecdhSoakServer) call(c *soakCheck) error {
	k := &s.soak.cases[c.rng.IntN(len(s.soak.cases))]
	keygen := c.rng.IntN(4) == 0
	var got []byte
	var err error
	if keygen {
		got, err = s.PublicKey(context.Background(), s.soak.curve, k.priv)
	} else {
		got, err = s.SharedSecret(context.Background(), s.soak.curve, k.priv, k.peer)
	}
	if err != nil {
		return err
	}
	s.soak.check(c, k, keygen, got, "Server")
	return nil
}
