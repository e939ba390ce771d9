package rsa

import (
	"context"
	"crypto"
	"crypto/rand"
	stdrsa "crypto/rsa"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Signer is a crypto.Signer and crypto.Decrypter for one RSA private key
// whose private-key operations are batched by a Server with those of other
// goroutines. It behaves like the *rsa.PrivateKey itself, so it can stand
// wherever one is used: tls.Certificate{PrivateKey: signer}, x509
// certificate signing, and so on. Server.Signer makes one.
type Signer struct {
	s        *Server
	key      *stdrsa.PrivateKey
	prepared *privateKey
}

var (
	_ crypto.Signer    = (*Signer)(nil)
	_ crypto.Decrypter = (*Signer)(nil)
)

// Public returns the key's *rsa.PublicKey.
func (s *Signer) Public() crypto.PublicKey { return &s.key.PublicKey }

// Sign is SignContext with context.Background(): it signs digest as
// crypto/rsa.PrivateKey.Sign does. With *rsa.PSSOptions it makes an
// RSASSA-PSS signature (salt from random); with any other opts an
// RSASSA-PKCS1-v1_5 signature with opts.HashFunc().
func (s *Signer) Sign(random io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	return s.SignContext(context.Background(), random, digest, opts)
}

// SignContext is Sign; ctx bounds the wait for the batch (a nil ctx is
// an error).
func (s *Signer) SignContext(ctx context.Context, random io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	x, err := s.encode(random, digest, opts)
	if err != nil {
		return nil, err
	}
	sig, err := s.s.private(ctx, s.prepared, x.b)
	if err == nil || ctx == nil || ctx.Err() == nil {
		// answered (or never queued): no batch reads x any more. A
		// request abandoned when ctx ended may still be in a batch that
		// reads it: its x is left to the garbage collector.
		putEncoded(x)
	}
	return sig, err
}

// Call is one signature submitted with Signer.Go: its inputs (as Sign
// takes them), and once it is complete its Result (the signature) or
// Err, after which the Signer's Server sends the Call on Done. A Call may
// be reused once it has come back on Done.
type Call struct {
	Rand   io.Reader // PSS salts (nil: crypto/rand.Reader)
	Digest []byte
	Opts   crypto.SignerOpts
	Result []byte
	Err    error
	// Done receives the Call when it is complete. It must be buffered,
	// with room for every Call in flight on it: a full Done holds up the
	// answers of the other requests of the Call's batch.
	Done chan *Call

	encoded *encodedMessage // the request's input while it is in flight
}

// Go submits call and returns without waiting for it (the asynchronous
// form of SignContext, for a caller that holds many requests: a signing
// service that decodes a frame of them): its outcome arrives on
// call.Done, the context's error included if ctx ends before its batch
// runs. The message is encoded in Go's goroutine. Go blocks only while
// the server's queue is full (batch.Options.QueueSize), until ctx ends.
// Its own error (a nil or unbuffered Done, bad options or digest, a nil
// or ended context, a closed server) means the Call was not submitted and
// will not arrive on Done. Like Sign, a Call may be computed on the CPU
// path (in a goroutine of its own) while few are in flight and the CPU
// would finish it before a batch.
func (s *Signer) Go(ctx context.Context, call *Call) error {
	if call == nil || call.Done == nil || cap(call.Done) == 0 {
		return errors.New("rsa: Signer.Go needs a Call with a buffered Done channel")
	}
	x, err := s.encode(call.Rand, call.Digest, call.Opts)
	if err != nil {
		return err
	}
	call.Result, call.Err, call.encoded = nil, nil, x
	if err := s.s.b.Go(ctx, privateRequest{key: s.prepared, in: x.b}, (*pendingCall)(call)); err != nil {
		call.encoded = nil
		putEncoded(x)
		return err
	}
	return nil
}

// pendingCall is a Call as the batcher completes it.
type pendingCall Call

func (c *pendingCall) Complete(result []byte, err error) {
	putEncoded(c.encoded) // its batch is done
	c.Result, c.Err, c.encoded = result, err, nil
	c.Done <- (*Call)(c)
}

// encodedMessage is a message encoded for signing, the modulus's size, in
// memory kept for the next one (encodedPools): a server that signs a
// million messages a second would otherwise allocate them all.
type encodedMessage struct{ b []byte }

// encodedPools keep encodedMessages by size in bytes.
var encodedPools [MaxKeyBits/8 + 1]sync.Pool

func getEncoded(size int) *encodedMessage {
	if m, ok := encodedPools[size].Get().(*encodedMessage); ok {
		return m
	}
	return &encodedMessage{b: make([]byte, size)}
}

func putEncoded(m *encodedMessage) {
	if m != nil {
		clear(m.b)
		encodedPools[len(m.b)].Put(m)
	}
}

// encode returns the encoded message that signs digest (Sign's
// arguments), the modulus's size; putEncoded gives it back once the
// signature is made.
func (s *Signer) encode(random io.Reader, digest []byte, opts crypto.SignerOpts) (m *encodedMessage, err error) {
	pub := s.prepared.pub
	buf := getEncoded(modBytes(pub))
	defer func() {
		if err != nil {
			putEncoded(buf)
		}
	}()
	x := buf.b // the encoded message
	switch o := opts.(type) {
	case nil:
		return nil, errors.New("rsa: Sign needs options (a crypto.Hash or *rsa.PSSOptions)")
	case *stdrsa.PSSOptions:
		if o == nil {
			return nil, errors.New("rsa: nil *rsa.PSSOptions")
		}
		hash := o.Hash
		if err := checkHash(hash); err != nil {
			return nil, err
		}
		sLen, err := pssSaltFor(pub, hash.Size(), o)
		if err != nil {
			return nil, err
		}
		salt := make([]byte, sLen)
		if _, err := io.ReadFull(orDefault(random), salt); err != nil {
			return nil, fmt.Errorf("rsa: reading the PSS salt: %w", err)
		}
		if err := pssSignInput(x, pub, hash.New(), digest, salt); err != nil {
			return nil, err
		}
	default:
		hash := opts.HashFunc()
		prefix, err := pkcs1v15Prefix(hash)
		if err != nil {
			return nil, err
		}
		if err := emsaPKCS1v15Into(x, hash, prefix, digest); err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// Decrypt is DecryptContext with context.Background(): it decrypts
// ciphertext as crypto/rsa.PrivateKey.Decrypt does. With nil opts or
// *rsa.PKCS1v15DecryptOptions it uses RSAES-PKCS1-v1_5; a SessionKeyLen
// above zero selects the session-key variant (a random key of that length,
// replaced by the message when the padding is valid and the lengths match:
// no padding oracle, as TLS's RSA key exchange needs). With
// *rsa.OAEPOptions it uses RSAES-OAEP with opts.Hash, opts.MGFHash (0: the
// same) and opts.Label.
func (s *Signer) Decrypt(random io.Reader, ciphertext []byte, opts crypto.DecrypterOpts) ([]byte, error) {
	return s.DecryptContext(context.Background(), random, ciphertext, opts)
}

// DecryptContext is Decrypt; ctx bounds the wait for the batch (a nil
// ctx is an error).
func (s *Signer) DecryptContext(ctx context.Context, random io.Reader, ciphertext []byte, opts crypto.DecrypterOpts) ([]byte, error) {
	unpad, err := s.decoding(random, opts)
	if err != nil {
		return nil, err
	}
	m, err := s.decrypt(ctx, ciphertext)
	if err != nil {
		return nil, err
	}
	return unpad(m)
}

// decoding returns the function that decodes a decrypted value (the
// modulus's size) as opts say, and wipes it: Decrypt's options checked
// before the private-key operation.
func (s *Signer) decoding(random io.Reader, opts crypto.DecrypterOpts) (func(m []byte) ([]byte, error), error) {
	pub := s.prepared.pub
	switch o := opts.(type) {
	case nil:
	case *stdrsa.PKCS1v15DecryptOptions:
		if o != nil && o.SessionKeyLen > 0 {
			return s.sessionKey(random, o.SessionKeyLen)
		}
	case *stdrsa.OAEPOptions:
		if o == nil {
			return nil, errors.New("rsa: nil *rsa.OAEPOptions")
		}
		hash, mgf := o.Hash, o.MGFHash
		if mgf == 0 {
			mgf = hash
		}
		if err := checkHash(hash); err != nil {
			return nil, err
		}
		if err := checkHash(mgf); err != nil {
			return nil, err
		}
		if err := oaepFits(pub, hash); err != nil {
			return nil, err
		}
		label := o.Label
		return func(m []byte) ([]byte, error) { return oaepOutput(m, hash.New(), mgf.New(), label) }, nil
	default:
		return nil, fmt.Errorf("rsa: invalid options for Decrypt: %T", opts)
	}
	return pkcs1v15Output, nil
}

// sessionKey is the decoding of PKCS #1 v1.5's session-key variant: a
// random key of size bytes, replaced by the message where its padding is
// valid and its length size, in constant time.
func (s *Signer) sessionKey(random io.Reader, size int) (func(m []byte) ([]byte, error), error) {
	key := make([]byte, size)
	if _, err := io.ReadFull(orDefault(random), key); err != nil {
		return nil, err
	}
	if modBytes(s.prepared.pub) < size+11 {
		return nil, ErrDecryption
	}
	return func(m []byte) ([]byte, error) {
		sessionKeyOutput(m, key)
		return key, nil
	}, nil
}

// DecryptCall is one decryption submitted with Signer.GoDecrypt: its
// inputs (as Decrypt takes them), and once it is complete its Result (the
// plaintext) or Err, after which the Signer's Server sends the Call on
// Done. A DecryptCall may be reused once it has come back on Done.
type DecryptCall struct {
	Rand       io.Reader // the session-key variant's random key (nil: crypto/rand.Reader)
	Ciphertext []byte
	Opts       crypto.DecrypterOpts
	Result     []byte
	Err        error
	// Done receives the DecryptCall when it is complete. It must be
	// buffered, with room for every DecryptCall in flight on it.
	Done chan *DecryptCall

	unpad func(m []byte) ([]byte, error)
}

// GoDecrypt submits call and returns without waiting for it (the
// asynchronous form of DecryptContext, as Go is of SignContext): its
// outcome arrives on call.Done, the context's error included if ctx ends
// before its batch runs; the plaintext is decoded from the decrypted
// value, in constant time, as the batch is answered. Its own error (a nil
// or unbuffered Done, bad options or ciphertext, a nil or ended context, a
// closed server) means the call was not submitted and will not arrive on
// Done.
func (s *Signer) GoDecrypt(ctx context.Context, call *DecryptCall) error {
	if call == nil || call.Done == nil || cap(call.Done) == 0 {
		return errors.New("rsa: Signer.GoDecrypt needs a DecryptCall with a buffered Done channel")
	}
	unpad, err := s.decoding(call.Rand, call.Opts)
	if err != nil {
		return err
	}
	if err := checkInput(s.prepared.pub, call.Ciphertext, ErrDecryption); err != nil {
		return err
	}
	call.Result, call.Err, call.unpad = nil, nil, unpad
	return s.s.b.Go(ctx, privateRequest{key: s.prepared, in: call.Ciphertext}, (*pendingDecryption)(call))
}

// pendingDecryption is a DecryptCall as the batcher completes it.
type pendingDecryption DecryptCall

func (c *pendingDecryption) Complete(m []byte, err error) {
	if err == nil {
		c.Result, c.Err = c.unpad(m)
	} else {
		c.Result, c.Err = nil, err
	}
	c.unpad = nil
	c.Done <- (*DecryptCall)(c)
}

// decrypt returns the decrypted value of ciphertext, the modulus's size
// (the callers decode and wipe it).
func (s *Signer) decrypt(ctx context.Context, ciphertext []byte) ([]byte, error) {
	if err := checkInput(s.prepared.pub, ciphertext, ErrDecryption); err != nil {
		return nil, err
	}
	return s.s.private(ctx, s.prepared, ciphertext)
}

func orDefault(r io.Reader) io.Reader {
	if r == nil {
		return rand.Reader
	}
	return r
}
