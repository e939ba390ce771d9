package main

import (
	"context"
	"crypto"
	stdecdh "crypto/ecdh"
	stdecdsa "crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"fmt"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/ecdsa"
)

var _ = serverOps.add(
	serverOp{name: "ecdsa-p256-sign", algorithm: "ecdsa", what: "ecdsa.Server.SignASN1, nonces hedged from crypto/rand", goPackage: "crypto/ecdsa",
		forms: []string{formBlocking, formAsync}, start: startECDSASign},
	serverOp{name: "ecdsa-p256-sign-rfc6979", algorithm: "ecdsa", what: "ecdsa.Server's Signer with a nil source: RFC 6979's deterministic nonces", goPackage: "crypto/ecdsa",
		forms: []string{formBlocking, formAsync}, start: startECDSASignDeterministic},
	serverOp{name: "ecdsa-p256-verify", algorithm: "ecdsa", what: "VerifyASN1", goPackage: "crypto/ecdsa",
		forms: []string{formBlocking, formAsync}, start: startECDSAVerify},
	serverOp{name: "ecdh-p256", algorithm: "ecdsa", what: "ecdsa.Server.ECDH", goPackage: "crypto/ecdh",
		forms: []string{formBlocking, formAsync}, start: startP256ECDH},
)

// startECDSA starts an ecdsa.Server for the P-256 operations, its device
// engines warmed with warm.
func startECDSA(devs []*device.Device, opts batch.Options, warm func(*ecdsa.Engine) error) (*ecdsa.Server, []*ecdsa.Engine, error) {
	engines, err := newEngines(devs, warmedOn(ecdsa.NewEngine, warm), ecdsa.CPUEngine)
	if err != nil {
		return nil, nil, err
	}
	s, err := ecdsa.NewServer(opts, engines...)
	if err != nil {
		closeEngines(engines)
		return nil, nil, err
	}
	return s, engines, nil
}

// newECDSAKey is a P-256 key for an ECDSA operation, and the engines'
// warm-up that signs with it.
func newECDSAKey() (*stdecdsa.PrivateKey, func(*ecdsa.Engine) error, error) {
	key, err := stdecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	return key, func(e *ecdsa.Engine) error {
		_, err := e.SignASN1(rand.Reader, []*stdecdsa.PrivateKey{key}, [][]byte{serverDigest[:]})
		return err
	}, nil
}

// startECDSASign: signatures hedged from crypto/rand (Server.SignASN1,
// crypto/ecdsa.SignASN1).
func startECDSASign(devs []*device.Device, opts batch.Options) (*serverBench, error) {
	key, warm, err := newECDSAKey()
	if err != nil {
		return nil, err
	}
	s, engines, err := startECDSA(devs, opts, warm)
	if err != nil {
		return nil, err
	}
	hash := serverDigest[:]
	return &serverBench{
		newCaller: sameCaller(func(ctx context.Context) error {
			_, err := s.SignASN1(ctx, rand.Reader, key, hash)
			return err
		}),
		newGoCaller: goECDSASign(key, hash),
		newSubmitter: func(window int) submitter {
			return newECDSASubmitter(func(done chan *ecdsa.Call) ecdsa.Call {
				return ecdsa.Call{Key: key, Hash: hash, Done: done}
			}, s.Go, window)
		},
		check: func(ctx context.Context) error {
			sig, err := s.SignASN1(ctx, rand.Reader, key, hash)
			if err != nil {
				return err
			}
			if !stdecdsa.VerifyASN1(&key.PublicKey, hash, sig) {
				return fmt.Errorf("bench server: ecdsa-p256-sign: crypto/ecdsa rejects the Server's signature %x", sig)
			}
			return nil
		},
		stats: s.Stats, engineStats: engineTotals(engines), close: closer(s, engines),
	}, nil
}

// startECDSASignDeterministic: RFC 6979's deterministic signatures (the
// Server's Signer and crypto/ecdsa's PrivateKey.Sign, both with a nil
// source of randomness). The Signer's Sign takes no context: the
// callers' is not passed on.
func startECDSASignDeterministic(devs []*device.Device, opts batch.Options) (*serverBench, error) {
	key, warm, err := newECDSAKey()
	if err != nil {
		return nil, err
	}
	s, engines, err := startECDSA(devs, opts, warm)
	if err != nil {
		return nil, err
	}
	signer, err := s.Signer(key)
	if err != nil {
		s.Close()
		closeEngines(engines)
		return nil, err
	}
	hash := serverDigest[:]
	return &serverBench{
		newCaller: sameCaller(func(context.Context) error {
			_, err := signer.Sign(nil, hash, crypto.SHA256)
			return err
		}),
		newGoCaller: goECDSASignDeterministic(key, hash),
		newSubmitter: func(window int) submitter {
			return newECDSASubmitter(func(done chan *ecdsa.Call) ecdsa.Call {
				return ecdsa.Call{Hash: hash, Done: done} // a nil Rand: RFC 6979's nonce
			}, signer.Go, window)
		},
		check: func(context.Context) error {
			sig, err := signer.Sign(nil, hash, crypto.SHA256)
			if err != nil {
				return err
			}
			std, err := key.Sign(nil, hash, crypto.SHA256)
			if err != nil {
				return err
			}
			return checkEqual("ecdsa-p256-sign-rfc6979", sig, std)
		},
		stats: s.Stats, engineStats: engineTotals(engines), close: closer(s, engines),
	}, nil
}

// startECDSAVerify: verifications of a valid DER signature
// (ecdsa.Server.VerifyASN1, crypto/ecdsa.VerifyASN1).
func startECDSAVerify(devs []*device.Device, opts batch.Options) (*serverBench, error) {
	key, _, err := newECDSAKey()
	if err != nil {
		return nil, err
	}
	hash := serverDigest[:]
	sig, err := stdecdsa.SignASN1(rand.Reader, key, hash)
	if err != nil {
		return nil, err
	}
	pub := &key.PublicKey
	s, engines, err := startECDSA(devs, opts, func(e *ecdsa.Engine) error {
		_, err := e.VerifyASN1([]*stdecdsa.PublicKey{pub}, [][]byte{hash}, [][]byte{sig})
		return err
	})
	if err != nil {
		return nil, err
	}
	verify := func(ctx context.Context) error {
		ok, err := s.VerifyASN1(ctx, pub, hash, sig)
		if err == nil && !ok {
			err = fmt.Errorf("ecdsa-p256-verify: %w", errRejected)
		}
		return err
	}
	return &serverBench{
		newCaller:   sameCaller(verify),
		newGoCaller: goECDSAVerify(pub, hash, sig),
		newSubmitter: func(window int) submitter {
			return newECDSASubmitter(func(done chan *ecdsa.Call) ecdsa.Call {
				return ecdsa.Call{Pub: pub, Hash: hash, Signature: sig, Done: done}
			}, s.Go, window)
		},
		check: verify,
		stats: s.Stats, engineStats: engineTotals(engines), close: closer(s, engines),
	}, nil
}

// startP256ECDH: P-256 shared secrets of a private key (32 bytes) and a
// peer's public key (65 bytes, uncompressed), as a TLS server's ECDHE
// over P-256 computes one per handshake.
func startP256ECDH(devs []*device.Device, opts batch.Options) (*serverBench, error) {
	curve := stdecdh.P256()
	mine, err := curve.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	theirs, err := curve.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	priv, peer := mine.Bytes(), theirs.PublicKey().Bytes()
	goCaller, err := goECDH(curve, priv, peer)
	if err != nil {
		return nil, err
	}
	s, engines, err := startECDSA(devs, opts, func(e *ecdsa.Engine) error {
		_, err := e.ECDH([][]byte{priv}, [][]byte{peer})
		return err
	})
	if err != nil {
		return nil, err
	}
	return &serverBench{
		newCaller: sameCaller(func(ctx context.Context) error {
			_, err := s.ECDH(ctx, priv, peer)
			return err
		}),
		newGoCaller: goCaller,
		newSubmitter: func(window int) submitter {
			return newECDSASubmitter(func(done chan *ecdsa.Call) ecdsa.Call {
				return ecdsa.Call{Priv: priv, Peer: peer, Done: done}
			}, s.Go, window)
		},
		check: func(ctx context.Context) error {
			secret, err := s.ECDH(ctx, priv, peer)
			if err != nil {
				return err
			}
			std, err := stdECDH(curve, priv, peer)
			if err != nil {
				return err
			}
			return checkEqual("ecdh-p256", secret, std)
		},
		stats: s.Stats, engineStats: engineTotals(engines), close: closer(s, engines),
	}, nil
}

// newECDSASubmitter submits the calls that call makes (a signing, a
// verification or an ECDH of ecdsa.Server.Go, or through submit a
// Signer's signing) for the P-256 operations.
func newECDSASubmitter(call func(done chan *ecdsa.Call) ecdsa.Call, submit func(context.Context, *ecdsa.Call) error, window int) submitter {
	return newCallSubmitter(window, call, submit, func(c *ecdsa.Call) error {
		if c.Err == nil && c.Pub != nil && !c.Valid {
			return fmt.Errorf("ecdsa-p256-verify: %w", errRejected)
		}
		return c.Err
	})
}

// goECDSASign: crypto/ecdsa's signature of hash hedged from crypto/rand
// (SignASN1).
func goECDSASign(key *stdecdsa.PrivateKey, hash []byte) func() func() error {
	return sameGoCaller(func() error {
		_, err := stdecdsa.SignASN1(rand.Reader, key, hash)
		return err
	})
}

// goECDSASignDeterministic: crypto/ecdsa's RFC 6979 signature of hash
// (PrivateKey.Sign with a nil source of randomness).
func goECDSASignDeterministic(key *stdecdsa.PrivateKey, hash []byte) func() func() error {
	return sameGoCaller(func() error {
		_, err := key.Sign(nil, hash, crypto.SHA256)
		return err
	})
}

// goECDSAVerify: crypto/ecdsa's verification of a valid DER signature.
func goECDSAVerify(pub *stdecdsa.PublicKey, hash, sig []byte) func() func() error {
	return sameGoCaller(func() error {
		if !stdecdsa.VerifyASN1(pub, hash, sig) {
			return fmt.Errorf("crypto/ecdsa: %w", errRejected)
		}
		return nil
	})
}
