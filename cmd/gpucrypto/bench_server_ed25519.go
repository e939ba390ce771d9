package main

import (
	"bytes"
	"context"
	stded25519 "crypto/ed25519"
	"crypto/sha256"
	"fmt"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/ed25519"
)

var _ = serverOps.add(
	serverOp{name: "ed25519-sign", algorithm: "ed25519", what: "ed25519.Server, 64-byte messages", goPackage: "crypto/ed25519",
		forms: []string{formBlocking, formAsync}, start: startEd25519Sign},
	serverOp{name: "ed25519-verify", algorithm: "ed25519", what: "ed25519.Server, 64-byte messages", goPackage: "crypto/ed25519",
		forms: []string{formBlocking, formAsync}, start: startEd25519Verify},
)

// serverMessage is the message of the Ed25519 operations, of
// ed25519MessageBytes bytes.
var serverMessage = bytes.Repeat([]byte{0x5a}, ed25519MessageBytes)

// serverEd25519Key is the key of the Ed25519 operations.
var serverEd25519Key = func() stded25519.PrivateKey {
	seed := sha256.Sum256([]byte("gpucrypto bench server ed25519"))
	return stded25519.NewKeyFromSeed(seed[:])
}()

// startEd25519 starts an ed25519.Server for startEd25519Sign and
// startEd25519Verify, its device engines warmed with warm.
func startEd25519(devs []*device.Device, opts batch.Options, warm func(*ed25519.Engine) error) (*ed25519.Server, []*ed25519.Engine, error) {
	engines, err := newEngines(devs, warmedOn(ed25519.NewEngine, warm), ed25519.CPUEngine)
	if err != nil {
		return nil, nil, err
	}
	s, err := ed25519.NewServer(opts, engines...)
	if err != nil {
		closeEngines(engines)
		return nil, nil, err
	}
	return s, engines, nil
}

// startEd25519Sign: Ed25519 signatures (ed25519.Server.Sign,
// crypto/ed25519.Sign).
func startEd25519Sign(devs []*device.Device, opts batch.Options) (*serverBench, error) {
	key, msg := serverEd25519Key, serverMessage
	s, engines, err := startEd25519(devs, opts, func(e *ed25519.Engine) error {
		_, err := e.Sign([]stded25519.PrivateKey{key}, [][]byte{msg}, nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &serverBench{
		newCaller: sameCaller(func(ctx context.Context) error {
			_, err := s.Sign(ctx, key, msg, nil)
			return err
		}),
		newGoCaller:  goEd25519Sign(key, msg),
		newSubmitter: func(window int) submitter { return newEd25519Submitter(s, key, nil, msg, nil, window) },
		check: func(ctx context.Context) error {
			sig, err := s.Sign(ctx, key, msg, nil)
			if err != nil {
				return err
			}
			return checkEqual("ed25519-sign", sig, stded25519.Sign(key, msg))
		},
		stats: s.Stats, engineStats: engineTotals(engines), close: closer(s, engines),
	}, nil
}

// startEd25519Verify: verifications of a valid Ed25519 signature
// (ed25519.Server.Verify, crypto/ed25519.Verify).
func startEd25519Verify(devs []*device.Device, opts batch.Options) (*serverBench, error) {
	key, msg := serverEd25519Key, serverMessage
	pub := key.Public().(stded25519.PublicKey)
	sig := stded25519.Sign(key, msg)
	s, engines, err := startEd25519(devs, opts, func(e *ed25519.Engine) error {
		_, err := e.Verify([]stded25519.PublicKey{pub}, [][]byte{msg}, [][]byte{sig}, nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	verify := func(ctx context.Context) error {
		ok, err := s.Verify(ctx, pub, msg, sig, nil)
		if err == nil && !ok {
			err = fmt.Errorf("ed25519-verify: %w", errRejected)
		}
		return err
	}
	return &serverBench{
		newCaller:    sameCaller(verify),
		newGoCaller:  goEd25519Verify(pub, msg, sig),
		newSubmitter: func(window int) submitter { return newEd25519Submitter(s, nil, pub, msg, sig, window) },
		check:        verify,
		stats:        s.Stats, engineStats: engineTotals(engines), close: closer(s, engines),
	}, nil
}

// newEd25519Submitter submits Ed25519 signings of msg under key, or with
// a nil key verifications of sig under pub, through ed25519.Server.Go.
func newEd25519Submitter(server *ed25519.Server, key stded25519.PrivateKey, pub stded25519.PublicKey, msg, sig []byte, window int) submitter {
	return newCallSubmitter(window, func(done chan *ed25519.Call) ed25519.Call {
		return ed25519.Call{Key: key, Pub: pub, Message: msg, Signature: sig, Done: done}
	}, server.Go, func(c *ed25519.Call) error {
		if c.Err == nil && c.Key == nil && !c.Valid {
			return fmt.Errorf("ed25519-verify: %w", errRejected)
		}
		return c.Err
	})
}

// goEd25519Sign: crypto/ed25519's signature of msg.
func goEd25519Sign(key stded25519.PrivateKey, msg []byte) func() func() error {
	return sameGoCaller(func() error {
		stded25519.Sign(key, msg)
		return nil
	})
}

// goEd25519Verify: crypto/ed25519's verification of a valid signature.
func goEd25519Verify(pub stded25519.PublicKey, msg, sig []byte) func() func() error {
	return sameGoCaller(func() error {
		if !stded25519.Verify(pub, msg, sig) {
			return fmt.Errorf("crypto/ed25519: %w", errRejected)
		}
		return nil
	})
}
