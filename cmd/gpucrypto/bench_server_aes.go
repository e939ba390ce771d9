package main

import (
	"bytes"
	"context"
	stdaes "crypto/aes"
	"crypto/cipher"
	"errors"
	"fmt"
	"os"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
)

var _ = serverOps.add(serverOp{name: "aes-gcm", algorithm: "aes", what: "aes.Server.Seal, AES-128-GCM, 1,500-byte records, 12-byte nonces", goPackage: "crypto/cipher",
	forms: []string{formBlocking, formAsync}, start: startAESGCM})

// aesRecordBytes is the size of the AES-GCM operation's records: what
// fits one Ethernet frame, as a QUIC connection or a TLS connection that
// keeps its records small seals them.
const aesRecordBytes = 1500

// startAESGCM: AES-128-GCM Seal of records of aesRecordBytes bytes with
// 12-byte nonces and no additional data, each caller (each call in
// flight) into an output buffer of its own.
func startAESGCM(devs []*device.Device, opts batch.Options) (*serverBench, error) {
	keyBytes := serverDigest[:16]
	nonce := serverDigest[16 : 16+aes.NonceSize]
	plaintext := bytes.Repeat([]byte{0xa5}, aesRecordBytes)
	key, err := aes.NewKey(keyBytes)
	if err != nil {
		return nil, err
	}
	goCaller, err := goAESGCMSeal(keyBytes, nonce, plaintext)
	if err != nil {
		return nil, err
	}
	warmed := warmedOn(aes.NewEngine, func(e *aes.Engine) error {
		_, err := e.Seal([]aes.Message{{Key: key, Nonce: nonce, Data: plaintext}})
		return err
	})
	engines, err := newEngines(devs, func(d *device.Device) (*aes.Engine, error) {
		e, err := warmed(d)
		if errors.Is(err, aes.ErrCPUDevice) {
			// AES refuses CPU devices: its Server runs over the CPU engine there
			fmt.Fprintf(os.Stderr, "bench server: aes-gcm: %v; the Server runs over aes.CPUEngine()\n", err)
			return aes.CPUEngine(), nil
		}
		return e, err
	}, aes.CPUEngine)
	if err != nil {
		return nil, err
	}
	s, err := aes.NewServer(opts, engines...)
	if err != nil {
		closeEngines(engines)
		return nil, err
	}
	size := len(plaintext) + aes.TagSize
	return &serverBench{
		newCaller: func() func(context.Context) error {
			dst := make([]byte, 0, size)
			return func(ctx context.Context) error {
				_, err := s.Seal(ctx, key, dst, nonce, plaintext, nil)
				return err
			}
		},
		newSubmitter: func(window int) submitter { return newAESSubmitter(s, key, nonce, plaintext, window) },
		newGoCaller:  goCaller,
		check: func(ctx context.Context) error {
			sealed, err := s.Seal(ctx, key, nil, nonce, plaintext, nil)
			if err != nil {
				return err
			}
			gcm, err := newGoGCM(keyBytes)
			if err != nil {
				return err
			}
			return checkEqual("aes-gcm", sealed, gcm.Seal(nil, nonce, plaintext, nil))
		},
		stats: s.Stats, engineStats: engineTotals(engines), close: closer(s, engines),
	}, nil
}

// newAESSubmitter submits AES-GCM Seals of plaintext through
// aes.Server.Go, each call of the window into an output buffer of its
// own.
func newAESSubmitter(server *aes.Server, key *aes.Key, nonce, plaintext []byte, window int) submitter {
	return newCallSubmitter(window, func(done chan *aes.Call) aes.Call {
		dst := make([]byte, 0, len(plaintext)+aes.TagSize)
		return aes.Call{Key: key, Dst: dst, Nonce: nonce, Data: plaintext, Done: done}
	}, server.Go, func(c *aes.Call) error { return c.Err })
}

// goAESGCMSeal: crypto/cipher's AES-GCM Seal, each goroutine with its own
// cipher.AEAD of the one key (as each connection of a server has its
// own) and its own output buffer.
func goAESGCMSeal(key, nonce, plaintext []byte) (func() func() error, error) {
	if _, err := newGoGCM(key); err != nil {
		return nil, err
	}
	return func() func() error {
		gcm, _ := newGoGCM(key) // made above with the same key
		dst := make([]byte, 0, len(plaintext)+gcm.Overhead())
		return func() error {
			gcm.Seal(dst, nonce, plaintext, nil)
			return nil
		}
	}, nil
}

// newGoGCM is crypto/cipher's AES-GCM under key.
func newGoGCM(key []byte) (cipher.AEAD, error) {
	block, err := stdaes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("bench server: crypto/aes: %w", err)
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("bench server: crypto/cipher: %w", err)
	}
	return gcm, nil
}
