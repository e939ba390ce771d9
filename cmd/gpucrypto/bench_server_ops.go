package main

import (
	"bytes"
	"context"
	"crypto"
	stdecdh "crypto/ecdh"
	stdecdsa "crypto/ecdsa"
	stded25519 "crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/ecdh"
	"github.com/gpucrypto/gpucrypto/ecdsa"
	"github.com/gpucrypto/gpucrypto/ed25519"
	"github.com/gpucrypto/gpucrypto/rsa"
)

// serverOp is an operation of `gpucrypto bench server`.
type serverOp struct {
	name string
	// forms are the forms of submission its Server has: blocking, and
	// async where the Server has a Go method (async-frames: GoFrame).
	// They are the newSubmitter and newFrameSubmitter that start sets:
	// TestServerOpForms checks that they agree.
	forms []string
	// start starts the operation's Server over one engine per device of
	// devs (none: one CPU engine), with Go's crypto/* for the same inputs
	// beside it.
	start func(devs []*device.Device, opts batch.Options) (*serverBench, error)
}

// The forms of submission (--forms).
const (
	formBlocking    = "blocking"
	formAsync       = "async"
	formAsyncFrames = "async-frames"
)

var serverForms = []string{formBlocking, formAsync, formAsyncFrames}

// serverOpList are the operations of `gpucrypto bench server`, in report
// order. Giving an operation its asynchronous form, once its Server has a
// Go method, is a newSubmitter in its start function (a newCallSubmitter
// over the Server's Call type, as newAESSubmitter) and formAsync in its
// forms.
var serverOpList = []serverOp{
	{"rsa2048", []string{formBlocking, formAsync}, startRSA},
	{"x25519", []string{formBlocking, formAsync, formAsyncFrames}, startX25519},
	{"ed25519-sign", []string{formBlocking, formAsync}, startEd25519Sign},
	{"ed25519-verify", []string{formBlocking, formAsync}, startEd25519Verify},
	{"ecdsa-p256-sign", []string{formBlocking, formAsync}, startECDSASign},
	{"ecdsa-p256-sign-rfc6979", []string{formBlocking, formAsync}, startECDSASignDeterministic},
	{"ecdsa-p256-verify", []string{formBlocking, formAsync}, startECDSAVerify},
	{"ecdh-p256", []string{formBlocking, formAsync}, startP256ECDH},
	{"aes-gcm", []string{formBlocking, formAsync}, startAESGCM},
}

// serverOpNames are the names of serverOpList: the operations (--ops) of
// `gpucrypto bench server`.
func serverOpNames() []string {
	names := make([]string, len(serverOpList))
	for i, op := range serverOpList {
		names[i] = op.name
	}
	return names
}

// serverOpNamed is the operation called name.
func serverOpNamed(name string) (serverOp, bool) {
	for _, op := range serverOpList {
		if op.name == name {
			return op, true
		}
	}
	return serverOp{}, false
}

// serverBench is one operation of `gpucrypto bench server` ready to
// measure: a Server of it, and Go's crypto/* computing it on the same
// inputs with the same key.
type serverBench struct {
	// newCaller makes the operation of one blocking caller through the
	// Server (each caller its own output buffers, where the operation
	// has them); ctx is the context the caller passes.
	newCaller func() func(ctx context.Context) error
	// newSubmitter and newFrameSubmitter make a goroutine's window of the
	// asynchronous forms (nil: the Server has no such form).
	newSubmitter, newFrameSubmitter func(window int) submitter
	// newGoCaller makes the operation of one goroutine with Go's
	// crypto/*.
	newGoCaller func() func() error
	// check computes the operation once through the Server and compares
	// the result with Go's (an error if they differ): the Server's first
	// call, which also builds what its first batch needs.
	check func(ctx context.Context) error
	// stats are the Server's; engineStats its engines' summed, their
	// calls (the batches the Server gave them) included.
	stats, engineStats func() batch.Stats
	close              func()
}

// benchEngine is what bench server needs of every package's Engine.
type benchEngine interface {
	comparable
	Stats() batch.Stats
	Close() error
}

// newEngines makes an engine on each device of devs with onDevice, or
// with no device one CPU engine with onCPU.
func newEngines[E benchEngine](devs []*device.Device, onDevice func(*device.Device) (E, error), onCPU func() E) ([]E, error) {
	if len(devs) == 0 {
		return []E{onCPU()}, nil
	}
	var engines []E
	for _, d := range devs {
		e, err := onDevice(d)
		if err != nil {
			closeEngines(engines)
			return nil, fmt.Errorf("%s: %w", d, err)
		}
		engines = append(engines, e)
	}
	return engines, nil
}

func closeEngines[E benchEngine](engines []E) {
	for _, e := range engines {
		e.Close()
	}
}

// warmedOn is newEngine followed by one call of warm on the device
// (batch.RouteDevice, then back to the default route), as a server does at
// start-up: the kernels are built then, not in the first batches of a
// measurement (which a lone request's CPU path would not build either).
func warmedOn[E interface {
	benchEngine
	SetRoute(batch.Route)
}](newEngine func(*device.Device) (E, error), warm func(E) error) func(*device.Device) (E, error) {
	return func(d *device.Device) (E, error) {
		e, err := newEngine(d)
		if err != nil {
			return e, err
		}
		e.SetRoute(batch.RouteDevice)
		err = warm(e)
		e.SetRoute(batch.RouteAuto)
		if err != nil {
			e.Close()
			var none E
			return none, fmt.Errorf("the first call on the device: %w", err)
		}
		return e, nil
	}
}

// engineTotals sums the Stats of engines, Calls included (batch.Stats.Add
// leaves them out).
func engineTotals[E benchEngine](engines []E) func() batch.Stats {
	return func() batch.Stats {
		var st batch.Stats
		for _, e := range engines {
			o := e.Stats()
			st.Calls += o.Calls
			st.Add(o)
		}
		return st
	}
}

// closer closes the Server s, then its engines.
func closer[E benchEngine](s interface{ Close() error }, engines []E) func() {
	return func() {
		s.Close()
		closeEngines(engines)
	}
}

// sameCaller is a newCaller whose callers all share call (no buffers of
// their own).
func sameCaller(call func(context.Context) error) func() func(context.Context) error {
	return func() func(context.Context) error { return call }
}

// sameGoCaller is a newGoCaller whose goroutines all share call.
func sameGoCaller(call func() error) func() func() error {
	return func() func() error { return call }
}

// checkEqual is check's comparison of the Server's result with Go's.
func checkEqual(op string, server, std []byte) error {
	if !bytes.Equal(server, std) {
		return fmt.Errorf("bench server: %s: the Server's result %x differs from Go's %x", op, server, std)
	}
	return nil
}

// errRejected is the error of a verification operation whose valid
// signature was refused.
var errRejected = errors.New("a valid signature rejected")

// serverDigest is the SHA-256 hash that the RSA and ECDSA operations sign.
var serverDigest = sha256.Sum256([]byte("gpucrypto bench server"))

// serverMessage is the message of the Ed25519 operations, of
// ed25519MessageBytes bytes.
var serverMessage = bytes.Repeat([]byte{0x5a}, ed25519MessageBytes)

// aesRecordBytes is the size of the AES-GCM operation's records: what
// fits one Ethernet frame, as a QUIC connection or a TLS connection that
// keeps its records small seals them.
const aesRecordBytes = 1500

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
