package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"sync/atomic"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/mlkem"
)

var _ = serverOps.add(
	serverOp{name: "mlkem768-encaps", algorithm: "mlkem",
		what:      fmt.Sprintf("mlkem.Server.Encapsulate, ML-KEM-768, to %d keys in turn", serverMLKEMKeys),
		goPackage: "crypto/mlkem", forms: []string{formBlocking, formAsync}, start: startMLKEMEncapsulate},
	serverOp{name: "mlkem768-decaps", algorithm: "mlkem", what: "mlkem.DecapsulationKey.DecapsulateContext (async: the key's Go), ML-KEM-768, one key held by the Server",
		goPackage: "crypto/mlkem", forms: []string{formBlocking, formAsync}, start: startMLKEMDecapsulate},
)

// serverMLKEMKeys is the number of encapsulation keys that the
// encapsulations of bench server go to, each caller (each call in flight)
// taking them in turn from a place of its own: as a TLS server
// encapsulates to the key shares of its clients, consecutive requests
// rarely share a key (and a batch's key checks).
const serverMLKEMKeys = 256

// serverMLKEMSeed is the seed of key i of the ML-KEM operations: the
// decapsulation key (i = 0) and the keys encapsulated to.
func serverMLKEMSeed(i int) []byte {
	d := sha256.Sum256(fmt.Appendf(nil, "gpucrypto bench server mlkem d %d", i))
	z := sha256.Sum256(fmt.Appendf(nil, "gpucrypto bench server mlkem z %d", i))
	return append(d[:], z[:]...)
}

// startMLKEM starts an mlkem.Server for the ML-KEM operations, its device
// engines warmed with warm.
func startMLKEM(devs []*device.Device, opts batch.Options, warm func(*mlkem.Engine) error) (*mlkem.Server, []*mlkem.Engine, error) {
	engines, err := newEngines(devs, warmedOn(mlkem.NewEngine, warm), mlkem.CPUEngine)
	if err != nil {
		return nil, nil, err
	}
	s, err := mlkem.NewServer(opts, engines...)
	if err != nil {
		closeEngines(engines)
		return nil, nil, err
	}
	return s, engines, nil
}

// startMLKEMEncapsulate: ML-KEM-768 encapsulations with fresh randomness
// to the bytes of serverMLKEMKeys encapsulation keys
// (mlkem.Server.Encapsulate; crypto/mlkem's NewEncapsulationKey768 of the
// bytes, as a server receives them, and Encapsulate).
func startMLKEMEncapsulate(devs []*device.Device, opts batch.Options) (*serverBench, error) {
	set := mlkem768Set
	eks := make([][]byte, serverMLKEMKeys)
	dks := make([]stdDecapsulator, serverMLKEMKeys)
	for i := range eks {
		dk, ek, err := set.stdKey(serverMLKEMSeed(i))
		if err != nil {
			return nil, fmt.Errorf("bench server: crypto/mlkem: %w", err)
		}
		eks[i], dks[i] = ek.Bytes(), dk
	}
	s, engines, err := startMLKEM(devs, opts, func(e *mlkem.Engine) error {
		_, _, err := set.encapsulate(e, eks[:1])
		return err
	})
	if err != nil {
		return nil, err
	}
	// places hands each caller, each call of an asynchronous window and
	// each Go goroutine its first key: they take the keys in turn from
	// there
	var places atomic.Int64
	nextKey := func() func() int {
		k := int(places.Add(1) * 37 % serverMLKEMKeys)
		return func() int {
			k = (k + 1) % serverMLKEMKeys
			return k
		}
	}
	return &serverBench{
		newCaller: func() func(context.Context) error {
			next := nextKey()
			return func(ctx context.Context) error {
				_, _, err := s.Encapsulate(ctx, set.params, eks[next()])
				return err
			}
		},
		newSubmitter: func(window int) submitter {
			return newCallSubmitter(window, func(done chan *mlkem.Call) mlkem.Call {
				return mlkem.Call{Parameters: set.params, EncapsulationKey: eks[nextKey()()], Done: done}
			}, s.Go, func(c *mlkem.Call) error { return c.Err })
		},
		newGoCaller: func() func() error {
			next := nextKey()
			return func() error {
				ek, err := set.stdEncapsulationKey(eks[next()])
				if err != nil {
					return err
				}
				ek.Encapsulate()
				return nil
			}
		},
		check: func(ctx context.Context) error {
			shared, ct, err := s.Encapsulate(ctx, set.params, eks[0])
			if err != nil {
				return err
			}
			std, err := dks[0].Decapsulate(ct)
			if err != nil {
				return fmt.Errorf("bench server: mlkem768-encaps: crypto/mlkem refuses the Server's ciphertext: %w", err)
			}
			if !bytes.Equal(shared, std) {
				return fmt.Errorf("bench server: mlkem768-encaps: crypto/mlkem decapsulates the Server's ciphertext to %x, not its shared key %x", std, shared)
			}
			return nil
		},
		stats: s.Stats, engineStats: engineTotals(engines), close: closer(s, engines),
	}, nil
}

// startMLKEMDecapsulate: ML-KEM-768 decapsulations of a ciphertext under
// one key, held by the Server as a server keeps its keys (its
// DecapsulationKey; the async form submits the key's seed, a Call having
// no held key), beside crypto/mlkem's DecapsulationKey768, decoded once,
// and Decapsulate.
func startMLKEMDecapsulate(devs []*device.Device, opts batch.Options) (*serverBench, error) {
	set := mlkem768Set
	seed := serverMLKEMSeed(0)
	dk, ek, err := set.stdKey(seed)
	if err != nil {
		return nil, fmt.Errorf("bench server: crypto/mlkem: %w", err)
	}
	_, ct := ek.Encapsulate()
	s, engines, err := startMLKEM(devs, opts, func(e *mlkem.Engine) error {
		_, err := set.decapsulate(e, [][]byte{seed}, [][]byte{ct})
		return err
	})
	if err != nil {
		return nil, err
	}
	held, submitHeld, closeHeld, err := heldDecapsulation(s, set.params, seed)
	if err != nil {
		closer(s, engines)()
		return nil, fmt.Errorf("bench server: mlkem DecapsulationKey: %w", err)
	}
	return &serverBench{
		newCaller: sameCaller(func(ctx context.Context) error {
			_, err := held(ctx, ct)
			return err
		}),
		newSubmitter: func(window int) submitter {
			return newCallSubmitter(window, func(done chan *mlkem.Call) mlkem.Call {
				return mlkem.Call{Ciphertext: ct, Done: done}
			}, submitHeld, func(c *mlkem.Call) error { return c.Err })
		},
		newGoCaller: sameGoCaller(func() error {
			_, err := dk.Decapsulate(ct)
			return err
		}),
		check: func(ctx context.Context) error {
			shared, err := held(ctx, ct)
			if err != nil {
				return err
			}
			std, err := dk.Decapsulate(ct)
			if err != nil {
				return err
			}
			return checkEqual("mlkem768-decaps", shared, std)
		},
		stats: s.Stats, engineStats: engineTotals(engines), close: func() { closeHeld(); closer(s, engines)() },
	}, nil
}
