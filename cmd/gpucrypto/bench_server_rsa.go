package main

import (
	"context"
	"crypto"
	"crypto/rand"
	stdrsa "crypto/rsa"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/rsa"
)

var _ = serverOps.add(serverOp{name: "rsa2048", algorithm: "rsa", what: "rsa.Server's Signer, PKCS #1 v1.5 SHA-256", goPackage: "crypto/rsa",
	forms: []string{formBlocking, formAsync}, start: startRSA})

// startRSA: PKCS #1 v1.5 signatures of a SHA-256 digest with one
// RSA-2048 key (rsa.Server's Signer, crypto/rsa.SignPKCS1v15).
func startRSA(devs []*device.Device, opts batch.Options) (*serverBench, error) {
	engines, err := newEngines(devs, func(d *device.Device) (*rsa.Engine, error) {
		e, err := rsa.NewEngine(d)
		if err != nil {
			return nil, err
		}
		// as a server does at start-up: every kernel a batch size may use
		if err := e.Warm(2048); err != nil {
			e.Close()
			return nil, err
		}
		return e, nil
	}, rsa.CPUEngine)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*serverBench, error) { closeEngines(engines); return nil, err }
	key, err := benchKey(2048)
	if err != nil {
		return fail(err)
	}
	s, err := rsa.NewServer(opts, engines...)
	if err != nil {
		return fail(err)
	}
	signer, err := s.Signer(key)
	if err != nil {
		s.Close()
		return fail(err)
	}
	digest := serverDigest[:]
	return &serverBench{
		newCaller: sameCaller(func(ctx context.Context) error {
			_, err := signer.SignContext(ctx, nil, digest, crypto.SHA256)
			return err
		}),
		newSubmitter: func(window int) submitter { return newRSASubmitter(signer, digest, window) },
		newGoCaller:  goRSASign(key, digest),
		check: func(ctx context.Context) error {
			sig, err := signer.SignContext(ctx, nil, digest, crypto.SHA256)
			if err != nil {
				return err
			}
			std, err := key.Sign(nil, digest, crypto.SHA256)
			if err != nil {
				return err
			}
			return checkEqual("rsa2048", sig, std)
		},
		stats: s.Stats, engineStats: engineTotals(engines), close: closer(s, engines),
	}, nil
}

// newRSASubmitter submits signatures of digest through Signer.Go.
func newRSASubmitter(signer *rsa.Signer, digest []byte, window int) submitter {
	return newCallSubmitter(window, func(done chan *rsa.Call) rsa.Call {
		return rsa.Call{Digest: digest, Opts: crypto.SHA256, Done: done}
	}, signer.Go, func(c *rsa.Call) error { return c.Err })
}

// goRSASign: crypto/rsa's PKCS #1 v1.5 signature of a SHA-256 digest.
func goRSASign(key *stdrsa.PrivateKey, digest []byte) func() func() error {
	return sameGoCaller(func() error {
		_, err := stdrsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, digest)
		return err
	})
}
