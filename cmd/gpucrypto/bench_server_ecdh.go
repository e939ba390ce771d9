package main

import (
	"context"
	stdecdh "crypto/ecdh"
	"fmt"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/ecdh"
)

var _ = serverOps.add(serverOp{name: "x25519", algorithm: "ecdh", what: "ecdh.Server.SharedSecret", goPackage: "crypto/ecdh",
	forms: []string{formBlocking, formAsync, formAsyncFrames}, start: startX25519})

// startX25519: X25519 shared secrets (ecdh.Server.SharedSecret,
// crypto/ecdh).
func startX25519(devs []*device.Device, opts batch.Options) (*serverBench, error) {
	// a private key and the peer's public key (u = 9, the base point)
	priv, peer := make([]byte, 32), make([]byte, 32)
	priv[0], peer[0] = 7, 9
	goCaller, err := goECDH(stdecdh.X25519(), priv, peer)
	if err != nil {
		return nil, err
	}
	engines, err := newEngines(devs, warmedOn(ecdh.NewEngine, func(e *ecdh.Engine) error {
		_, err := e.SharedSecrets(ecdh.X25519(), [][]byte{priv}, [][]byte{peer})
		return err
	}), ecdh.CPUEngine)
	if err != nil {
		return nil, err
	}
	backends := make([]*ecdh.Engine, len(engines))
	for i, e := range engines {
		backends[i] = e
	}
	s, err := ecdh.NewServer(opts, backends...)
	if err != nil {
		closeEngines(engines)
		return nil, err
	}
	return &serverBench{
		newCaller: sameCaller(func(ctx context.Context) error {
			_, err := s.SharedSecret(ctx, ecdh.X25519(), priv, peer)
			return err
		}),
		newSubmitter:      func(window int) submitter { return newECDHSubmitter(s, priv, peer, window) },
		newFrameSubmitter: func(window int) submitter { return newFrameSubmitter(s, priv, peer, window) },
		newGoCaller:       goCaller,
		check: func(ctx context.Context) error {
			secret, err := s.SharedSecret(ctx, ecdh.X25519(), priv, peer)
			if err != nil {
				return err
			}
			std, err := stdECDH(stdecdh.X25519(), priv, peer)
			if err != nil {
				return err
			}
			return checkEqual("x25519", secret, std)
		},
		stats: s.Stats, engineStats: engineTotals(engines), close: closer(s, engines),
	}, nil
}

// newECDHSubmitter submits X25519 shared secrets through Server.Go.
func newECDHSubmitter(server *ecdh.Server, priv, peer []byte, window int) submitter {
	return newCallSubmitter(window, func(done chan *ecdh.Call) ecdh.Call {
		return ecdh.Call{Curve: ecdh.X25519(), Priv: priv, Peer: peer, Done: done}
	}, server.Go, func(c *ecdh.Call) error { return c.Err })
}

// frameSubmitter submits X25519 shared secrets in frames of frameSize
// calls through Server.GoFrame.
type frameSubmitter struct {
	server *ecdh.Server
	frames []ecdh.Frame
	done   chan *ecdh.Frame
}

// newFrameSubmitter makes a window of frames, about window calls in all.
func newFrameSubmitter(server *ecdh.Server, priv, peer []byte, window int) submitter {
	s := &frameSubmitter{server: server, frames: make([]ecdh.Frame, max(1, (window+frameSize/2)/frameSize))}
	s.done = make(chan *ecdh.Frame, len(s.frames))
	for i := range s.frames {
		f := &s.frames[i]
		f.Calls, f.Done = make([]ecdh.Call, frameSize), s.done
		for k := range f.Calls {
			f.Calls[k] = ecdh.Call{Curve: ecdh.X25519(), Priv: priv, Peer: peer}
		}
	}
	return s
}

func (s *frameSubmitter) units() int { return len(s.frames) }
func (s *frameSubmitter) size() int  { return frameSize }

func (s *frameSubmitter) submit(ctx context.Context, u int) error {
	return s.server.GoFrame(ctx, &s.frames[u])
}

func (s *frameSubmitter) next() (int, error) {
	f := <-s.done
	for _, c := range f.Calls {
		if c.Err != nil {
			return indexOf(s.frames, f), c.Err
		}
	}
	return indexOf(s.frames, f), nil
}

// goECDH: crypto/ecdh's shared secret of priv with peer, the private key
// decoded once (as a server holds it) and the peer's public key decoded in
// each operation (as a server receives it), as the Servers take it.
func goECDH(curve stdecdh.Curve, priv, peer []byte) (func() func() error, error) {
	key, err := curve.NewPrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("bench server: crypto/ecdh: %w", err)
	}
	if _, err := curve.NewPublicKey(peer); err != nil {
		return nil, fmt.Errorf("bench server: crypto/ecdh: %w", err)
	}
	return sameGoCaller(func() error {
		pub, err := curve.NewPublicKey(peer)
		if err != nil {
			return err
		}
		_, err = key.ECDH(pub)
		return err
	}), nil
}

// stdECDH is crypto/ecdh's shared secret of priv with peer (the
// reference of the ECDH operations' check).
func stdECDH(curve stdecdh.Curve, priv, peer []byte) ([]byte, error) {
	key, err := curve.NewPrivateKey(priv)
	if err != nil {
		return nil, err
	}
	pub, err := curve.NewPublicKey(peer)
	if err != nil {
		return nil, err
	}
	return key.ECDH(pub)
}
