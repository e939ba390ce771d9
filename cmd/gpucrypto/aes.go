package main

// This file is AES's part of the CLI: its rows of `gpucrypto bench
// server`, and its operations of `gpucrypto burnin` and of its soak
// (burnin --soak), in that order, each added to the tables of tables.go.
// bench aes is a command of its own, not a group (bench_aes.go,
// bench_aes_manavski.go). An algorithm new to the CLI adds one such file,
// named after it.

import (
	"bytes"
	"context"
	stdaes "crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os"

	"golang.org/x/crypto/xts"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
)

// Its rows of `gpucrypto bench server` (serverOps).

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

// Its operations of `gpucrypto burnin` (burninOps).

// The AES operations of burnin. Every case is checked against
// crypto/aes and crypto/cipher (golang.org/x/crypto/xts for XTS), which is
// cheap: a batch call (GCM, CBC, XTS) is a batch of messages of random
// lengths, keys (each shared by about eight messages), nonces, IVs and
// tweaks, encrypted on the device and compared to the CPU's result, then
// the CPU's ciphertext decrypted on the device and compared to the
// plaintext (GCM: one in aesTamperEvery altered first, which must fail
// with aes.ErrOpen). A bulk call (CTR, ECB) is one case: one buffer of
// random length under a random key, sometimes in place.
var _ = burninOps.add(
	aesBurninOp("aes-gcm", 16384, 256, checkGCM),
	aesBurninOp("aes-cbc", 16384, 256, checkCBC),
	aesBurninOp("aes-xts", 16384, 256, checkXTS),
	aesBurninOp("aes-ctr", 64, 4, checkCTR),
	aesBurninOp("aes-ecb", 64, 4, checkECB),
)

const aesTamperEvery = 8

func aesBurninOp(name string, gpuBatch, cpuBatch int, check func(b *burninBatch, e *aes.Engine)) burninOp {
	return burninOp{name: name, algorithm: "aes", batchGPU: gpuBatch, batchCPU: cpuBatch, prepare: func(r *burninRun) (burninCheck, error) {
		e, err := burninEngineOf(r, aes.NewEngine)
		if errors.Is(err, aes.ErrCPUDevice) {
			return nil, burninSkipped{err} // AES refuses CPU devices: nothing of the device to test
		}
		if err != nil {
			return nil, err
		}
		return func(b *burninBatch) { check(b, e) }, nil
	}}
}

// aesKey is a random key of one of sizes bytes, for the device and for
// the CPU.
type aesKey struct {
	raw   []byte
	key   *aes.Key
	block cipher.Block
}

func (b *burninBatch) aesKeys(count int, sizes ...int) ([]aesKey, error) {
	keys := make([]aesKey, count)
	for i := range keys {
		raw := b.bytes(sizes[b.rng.IntN(len(sizes))])
		k, err := aes.NewKey(raw)
		if err != nil {
			return nil, err
		}
		block, err := stdaes.NewCipher(raw)
		if err != nil {
			return nil, err
		}
		keys[i] = aesKey{raw: raw, key: k, block: block}
	}
	return keys, nil
}

func destroyKeys(keys []aesKey) {
	for _, k := range keys {
		k.key.Close()
	}
}

// aesLength is a random message length: mostly up to 2 KB, one in 64 up
// to 64 KB; a multiple of unit.
func (b *burninBatch) aesLength(least, unit int) int {
	most := 2048
	if b.rng.IntN(64) == 0 {
		most = 65536
	}
	return least + b.rng.IntN((most-least)/unit+1)*unit
}

func checkGCM(b *burninBatch, e *aes.Engine) {
	keys, err := b.aesKeys(max(1, b.n/8), 16, 24, 32)
	if err != nil {
		b.failAll("aes.NewKey", err)
		return
	}
	defer destroyKeys(keys)
	msgs := make([]aes.Message, b.n)
	ks := make([]int, b.n)
	for i := range msgs {
		ks[i] = b.rng.IntN(len(keys))
		nonce := 12
		if b.rng.IntN(8) == 0 {
			nonce = 1 + b.rng.IntN(32)
		}
		aad := 0
		if b.rng.IntN(2) == 0 {
			aad = b.rng.IntN(65)
		}
		msgs[i] = aes.Message{Key: keys[ks[i]].key, Nonce: b.bytes(nonce), AAD: b.bytes(aad), Data: b.bytes(b.aesLength(0, 1))}
	}
	sealed, err := e.Seal(msgs)
	sealErrs, ok := elementErrors(err, b.n)
	if !ok {
		b.failAll("Seal", err)
		return
	}
	b.tamper(sealed)
	want := make([][]byte, b.n)
	opens := make([]aes.Message, b.n)
	tampered := make([]bool, b.n)
	batch.Parallel(b.n, 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			m := &msgs[i]
			aead, _ := cipher.NewGCMWithNonceSize(keys[ks[i]].block, len(m.Nonce))
			want[i] = aead.Seal(nil, m.Nonce, m.Data, m.AAD)
		}
	})
	for i := range opens {
		opens[i] = msgs[i]
		opens[i].Data = want[i]
		if b.rng.IntN(aesTamperEvery) == 0 {
			opens[i].Data = bytes.Clone(want[i])
			opens[i].Data[b.rng.IntN(len(want[i]))] ^= 1 << b.rng.IntN(8)
			tampered[i] = true
		}
	}
	opened, err := e.Open(opens)
	openErrs, ok := elementErrors(err, b.n)
	if !ok {
		b.failAll("Open", err)
		return
	}
	for i := range msgs {
		m := &msgs[i]
		input := func() map[string]string {
			return hexMap("key", keys[ks[i]].raw, "nonce", m.Nonce, "aad", m.AAD, "plaintext", m.Data)
		}
		switch {
		case sealErrs[i] != nil || !bytes.Equal(sealed[i], want[i]):
			b.fail(i, "the device's sealed message differs from the CPU's", input(), hexMap("sealed", sealed[i]), hexMap("sealed", want[i]), sealErrs[i])
		case tampered[i] && !errors.Is(openErrs[i], aes.ErrOpen):
			b.fail(i, "the device opened an altered message", hexMap("key", keys[ks[i]].raw, "nonce", m.Nonce, "aad", m.AAD, "sealed", opens[i].Data),
				hexMap("opened", opened[i]), nil, openErrs[i])
		case !tampered[i] && (openErrs[i] != nil || !bytes.Equal(opened[i], m.Data)):
			b.fail(i, "the device did not open the CPU's sealed message to its plaintext", hexMap("key", keys[ks[i]].raw, "nonce", m.Nonce, "aad", m.AAD, "sealed", want[i]),
				hexMap("opened", opened[i]), hexMap("opened", m.Data), openErrs[i])
		}
	}
	b.stats.cpuChecked.Add(int64(b.n))
}

func checkCBC(b *burninBatch, e *aes.Engine) {
	keys, err := b.aesKeys(max(1, b.n/8), 16, 24, 32)
	if err != nil {
		b.failAll("aes.NewKey", err)
		return
	}
	defer destroyKeys(keys)
	msgs := make([]aes.CBCMessage, b.n)
	ks := make([]int, b.n)
	for i := range msgs {
		ks[i] = b.rng.IntN(len(keys))
		msgs[i] = aes.CBCMessage{Key: keys[ks[i]].key, IV: b.bytes(16), Data: b.bytes(b.aesLength(0, 16))}
	}
	cpu := func(i int, decrypt bool, src []byte) []byte {
		out := make([]byte, len(src))
		if decrypt {
			cipher.NewCBCDecrypter(keys[ks[i]].block, msgs[i].IV).CryptBlocks(out, src)
		} else {
			cipher.NewCBCEncrypter(keys[ks[i]].block, msgs[i].IV).CryptBlocks(out, src)
		}
		return out
	}
	checkModes(b, "CBC", msgs, func(i int) []byte { return keys[ks[i]].raw }, func(m *aes.CBCMessage) []byte { return m.IV },
		e.EncryptCBC, e.DecryptCBC, cpu, func(m *aes.CBCMessage, data []byte) aes.CBCMessage { c := *m; c.Data = data; return c })
}

func checkXTS(b *burninBatch, e *aes.Engine) {
	count := max(1, b.n/8)
	raws := make([][]byte, count)
	keys := make([]*aes.XTSKey, count)
	refs := make([]*xts.Cipher, count)
	for i := range keys {
		raws[i] = b.bytes([]int{32, 48, 64}[b.rng.IntN(3)])
		var err error
		if keys[i], err = aes.NewXTSKey(raws[i]); err == nil {
			refs[i], err = xts.NewCipher(stdaes.NewCipher, raws[i])
		}
		if err != nil {
			b.failAll("aes.NewXTSKey", err)
			return
		}
		defer keys[i].Close()
	}
	msgs := make([]aes.XTSMessage, b.n)
	ks := make([]int, b.n)
	sectors := make([]uint64, b.n)
	for i := range msgs {
		ks[i] = b.rng.IntN(count)
		sectors[i] = b.rng.Uint64()
		tweak := make([]byte, 16)
		binary.LittleEndian.PutUint64(tweak, sectors[i])
		msgs[i] = aes.XTSMessage{Key: keys[ks[i]], Tweak: tweak, Data: b.bytes(b.aesLength(16, 1))}
	}
	cpu := func(i int, decrypt bool, src []byte) []byte {
		if decrypt {
			return nil // not needed: the device's decryption is checked against the plaintext
		}
		return xtsReference(refs[ks[i]], sectors[i], src)
	}
	checkModes(b, "XTS", msgs, func(i int) []byte { return raws[ks[i]] }, func(m *aes.XTSMessage) []byte { return m.Tweak },
		e.EncryptXTS, e.DecryptXTS, cpu, func(m *aes.XTSMessage, data []byte) aes.XTSMessage { c := *m; c.Data = data; return c })
}

// checkModes is the check of CBC and XTS: encrypt on the device and on the
// CPU (cpu(i, false, plaintext)), compare, decrypt the CPU's ciphertext on
// the device and compare with the plaintext.
func checkModes[M aes.CBCMessage | aes.XTSMessage](b *burninBatch, mode string, msgs []M, key func(i int) []byte, iv func(*M) []byte,
	encrypt, decrypt func([]M) ([][]byte, error), cpu func(i int, decrypt bool, src []byte) []byte, with func(*M, []byte) M) {
	got, err := encrypt(msgs)
	encErrs, ok := elementErrors(err, b.n)
	if !ok {
		b.failAll("Encrypt"+mode, err)
		return
	}
	b.tamper(got)
	plain := make([][]byte, b.n)
	want := make([][]byte, b.n)
	back := make([]M, b.n)
	batch.Parallel(b.n, 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			plain[i] = dataOf(&msgs[i])
			want[i] = cpu(i, false, plain[i])
			back[i] = with(&msgs[i], want[i])
		}
	})
	opened, err := decrypt(back)
	decErrs, ok := elementErrors(err, b.n)
	if !ok {
		b.failAll("Decrypt"+mode, err)
		return
	}
	for i := range msgs {
		input := hexMap("key", key(i), "iv", iv(&msgs[i]), "plaintext", plain[i])
		switch {
		case encErrs[i] != nil || !bytes.Equal(got[i], want[i]):
			b.fail(i, "the device's "+mode+" encryption differs from the CPU's", input, hexMap("ciphertext", got[i]), hexMap("ciphertext", want[i]), encErrs[i])
		case decErrs[i] != nil || !bytes.Equal(opened[i], plain[i]):
			b.fail(i, "the device's "+mode+" decryption of the CPU's ciphertext is not the plaintext", input, hexMap("decrypted", opened[i]), hexMap("decrypted", plain[i]), decErrs[i])
		}
	}
	b.stats.cpuChecked.Add(int64(b.n))
}

// dataOf is the data of a CBC or XTS message.
func dataOf[M aes.CBCMessage | aes.XTSMessage](m *M) []byte {
	switch m := any(m).(type) {
	case *aes.CBCMessage:
		return m.Data
	case *aes.XTSMessage:
		return m.Data
	}
	return nil
}

// xtsReference encrypts a data unit of at least 16 bytes with
// golang.org/x/crypto/xts, which has no ciphertext stealing: for a
// partial last block it is built from two whole-block encryptions as IEEE
// 1619-2007 §5.3.2 defines it (the last whole block CC is encrypted at its
// position m−1; the partial block, padded with the tail of CC, at m; the
// two swap places and the second is cut to the partial length).
func xtsReference(c *xts.Cipher, sector uint64, p []byte) []byte {
	m, r := len(p)/16, len(p)%16
	head := make([]byte, 16*m)
	c.Encrypt(head, p[:16*m], sector)
	if r == 0 {
		return head
	}
	cc := head[16*(m-1):]
	x := make([]byte, 16*(m+1))
	copy(x, p[:16*m])
	copy(x[16*m:], p[16*m:])
	copy(x[16*m+r:], cc[r:])
	y := make([]byte, len(x))
	c.Encrypt(y, x, sector)
	out := make([]byte, 0, len(p))
	out = append(out, head[:16*(m-1)]...)
	out = append(out, y[16*m:]...)
	return append(out, cc[:r]...)
}

// checkCTR: each case one XORKeyStream call, a quarter of them in place,
// a quarter with a counter about to carry out of its low 64 bits.
func checkCTR(b *burninBatch, e *aes.Engine) {
	checkBulk(b, e, "XORKeyStream", 1, func(k aesKey, iv, dst, src []byte) error { return e.XORKeyStream(k.key, iv, dst, src) },
		func(k aesKey, iv, dst, src []byte) { cipher.NewCTR(k.block, iv).XORKeyStream(dst, src) }, nil)
}

// checkECB: each case one EncryptBlocks call, then DecryptBlocks of the
// CPU's ciphertext.
func checkECB(b *burninBatch, e *aes.Engine) {
	ecb := func(k aesKey, _, dst, src []byte) {
		for i := 0; i < len(src); i += 16 {
			k.block.Encrypt(dst[i:i+16], src[i:i+16])
		}
	}
	checkBulk(b, e, "EncryptBlocks", 16, func(k aesKey, _, dst, src []byte) error { return e.EncryptBlocks(k.key, dst, src) }, ecb,
		func(k aesKey, dst, src []byte) error { return e.DecryptBlocks(k.key, dst, src) })
}

// checkBulk runs b.n bulk calls of random lengths (a multiple of unit) and
// compares each with the CPU's (cpu); inverse, if not nil, must turn the
// CPU's output back into the input.
func checkBulk(b *burninBatch, e *aes.Engine, call string, unit int, device func(k aesKey, iv, dst, src []byte) error,
	cpu func(k aesKey, iv, dst, src []byte), inverse func(k aesKey, dst, src []byte) error) {
	keys, err := b.aesKeys(b.n, 16, 24, 32)
	if err != nil {
		b.failAll("aes.NewKey", err)
		return
	}
	defer destroyKeys(keys)
	type bulkCall struct{ iv, src, dst, want []byte }
	calls := make([]bulkCall, b.n)
	errs := make([]error, b.n)
	outs := make([][]byte, b.n)
	for i, k := range keys {
		size := unit * (1 + b.rng.IntN(65536/unit))
		if b.rng.IntN(16) == 0 {
			size = unit * (1 + b.rng.IntN(1<<20/unit))
		}
		c := &calls[i]
		c.src, c.iv = b.bytes(size), b.bytes(16)
		if b.rng.IntN(4) == 0 {
			binary.BigEndian.PutUint64(c.iv[8:], ^uint64(b.rng.IntN(1024))) // the low 64 bits carry within the call
		}
		c.want = make([]byte, size)
		cpu(k, c.iv, c.want, c.src)
		if b.rng.IntN(4) == 0 {
			c.dst = bytes.Clone(c.src)
			errs[i] = device(k, c.iv, c.dst, c.dst) // in place
		} else {
			c.dst = make([]byte, size)
			errs[i] = device(k, c.iv, c.dst, c.src)
		}
		outs[i] = c.dst
	}
	b.tamper(outs)
	for i, k := range keys {
		c := &calls[i]
		input := hexMap("key", k.raw, "iv", c.iv, "input", c.src)
		if errs[i] != nil || !bytes.Equal(c.dst, c.want) {
			b.fail(i, "the device's "+call+" differs from the CPU's", input, hexMap("output", c.dst), hexMap("output", c.want), errs[i])
			continue
		}
		if inverse != nil {
			back := make([]byte, len(c.src))
			if err := inverse(k, back, c.want); err != nil || !bytes.Equal(back, c.src) {
				b.fail(i, "the device's inverse of "+call+" of the CPU's output is not the input", input, hexMap("inverse", back), hexMap("inverse", c.src), err)
			}
		}
	}
	b.stats.cpuChecked.Add(int64(b.n))
}

// Its operations of the soak, `gpucrypto burnin --soak` (soakOperations).

var _ = soakOperations.add(soakOperation{name: "aes-gcm", algorithm: "aes",
	family: func(_ *soakRun, _ string, rng *mrand.Rand) (soakFamily, error) { return newAESSoak(rng) }})

// aesSoakKeys is the number of AES keys of the AES soak (128, 192 and 256
// bits).
const aesSoakKeys = 32

// aesSoak is AES-GCM in the soak: messages of random lengths sealed and
// compared with crypto/cipher's, crypto/cipher's ciphertexts opened, and
// altered ones refused (aes.ErrOpen).
type aesSoak struct {
	keys []aesKey
}

func newAESSoak(rng *mrand.Rand) (*aesSoak, error) {
	c := &soakCheck{rng: rng}
	s := &aesSoak{}
	for i := range aesSoakKeys {
		raw := c.bytes([]int{16, 24, 32}[i%3])
		k, err := aes.NewKey(raw)
		if err != nil {
			return nil, err
		}
		block, err := stdaes.NewCipher(raw)
		if err != nil {
			return nil, err
		}
		s.keys = append(s.keys, aesKey{raw: raw, key: k, block: block})
	}
	return s, nil
}

// aesSoakCase is one random message: its key, nonce, additional data and
// plaintext, and crypto/cipher's ciphertext (with the tag).
type aesSoakCase struct {
	key                       *aesKey
	nonce, aad, plain, sealed []byte
}

// newCase draws a message: mostly up to 2 KB, one in 64 up to 16 KB; a
// nonce of 12 bytes unless any is allowed (the Engine's calls), one time
// in eight.
func (s *aesSoak) newCase(c *soakCheck, anyNonce bool) aesSoakCase {
	k := &s.keys[c.rng.IntN(len(s.keys))]
	nonceSize := 12
	if anyNonce && c.rng.IntN(8) == 0 {
		nonceSize = 1 + c.rng.IntN(32)
	}
	most := 2048
	if c.rng.IntN(64) == 0 {
		most = 16384
	}
	m := aesSoakCase{key: k, nonce: c.bytes(nonceSize), aad: c.bytes(c.rng.IntN(33)), plain: c.bytes(c.rng.IntN(most + 1))}
	aead, _ := cipher.NewGCMWithNonceSize(k.block, nonceSize)
	m.sealed = aead.Seal(nil, m.nonce, m.plain, m.aad)
	return m
}

func (m *aesSoakCase) input() map[string]string {
	return hexMap("key", m.key.raw, "nonce", m.nonce, "aad", m.aad, "plaintext", m.plain)
}

func (s *aesSoak) newEngine(d *device.Device) (soakEngine, error) {
	e, err := aes.NewEngine(d)
	if errors.Is(err, aes.ErrCPUDevice) {
		e, err = aes.CPUEngine(), nil // AES refuses CPU devices: the soak runs its CPU engine there
	}
	if err != nil {
		return nil, err
	}
	return &aesSoakEngine{Engine: e, soak: s}, nil
}

type aesSoakEngine struct {
	*aes.Engine
	soak *aesSoak
}

// call seals n messages, or opens n ciphertexts, one in eight altered.
func (e *aesSoakEngine) call(c *soakCheck, n int) error {
	cases := make([]aesSoakCase, n)
	msgs := make([]aes.Message, n)
	for i := range cases {
		cases[i] = e.soak.newCase(c, true)
		msgs[i] = aes.Message{Key: cases[i].key.key, Nonce: cases[i].nonce, AAD: cases[i].aad, Data: cases[i].plain}
	}
	if c.rng.IntN(2) == 0 {
		sealed, err := e.Seal(msgs)
		if err != nil {
			return err
		}
		for i := range cases {
			checkSealed(c, &cases[i], sealed[i], "Engine")
		}
		return nil
	}
	altered := make([]bool, n)
	for i := range cases {
		msgs[i].Data = cases[i].sealed
		if c.rng.IntN(8) == 0 {
			msgs[i].Data = bytes.Clone(cases[i].sealed)
			msgs[i].Data[c.rng.IntN(len(msgs[i].Data))] ^= 1 << c.rng.IntN(8)
			altered[i] = true
		}
	}
	opened, err := e.Open(msgs)
	errs, ok := elementErrors(err, n)
	if !ok {
		return err
	}
	for i := range cases {
		checkOpened(c, &cases[i], altered[i], opened[i], errs[i], "Engine")
	}
	return nil
}

// checkSealed compares a ciphertext with crypto/cipher's.
func checkSealed(c *soakCheck, m *aesSoakCase, sealed []byte, via string) {
	if !bytes.Equal(sealed, m.sealed) {
		c.mismatch(via+" GCM ciphertext differs from crypto/cipher's", m.input(), hexMap("sealed", sealed), hexMap("sealed", m.sealed))
	}
}

// checkOpened judges the opening of m's ciphertext (altered or not).
func checkOpened(c *soakCheck, m *aesSoakCase, altered bool, opened []byte, err error, via string) {
	switch {
	case altered && !errors.Is(err, aes.ErrOpen):
		c.mismatch(via+" opened an altered ciphertext", m.input(), hexMap("plaintext", opened, "error", err), hexMap("error", aes.ErrOpen))
	case !altered && err != nil:
		c.mismatch(via+" refused crypto/cipher's ciphertext", m.input(), hexMap("error", err), nil)
	case !altered && !bytes.Equal(opened, m.plain):
		c.mismatch(via+" opened crypto/cipher's ciphertext to another plaintext", m.input(), hexMap("plaintext", opened), hexMap("plaintext", m.plain))
	}
}

func (e *aesSoakEngine) newServer(opts batch.Options) (soakServer, error) {
	srv, err := aes.NewServer(opts, e.Engine)
	if err != nil {
		return nil, err
	}
	return &aesSoakServer{Server: srv, soak: e.soak}, nil
}

type aesSoakServer struct {
	*aes.Server
	soak *aesSoak
}

// call seals one message or opens one ciphertext (altered one time in
// eight).
func (s *aesSoakServer) call(c *soakCheck) error {
	m := s.soak.newCase(c, false)
	if c.rng.IntN(2) == 0 {
		sealed, err := s.Seal(context.Background(), m.key.key, nil, m.nonce, m.plain, m.aad)
		if err != nil {
			return err
		}
		checkSealed(c, &m, sealed, "Server")
		return nil
	}
	data, altered := m.sealed, c.rng.IntN(8) == 0
	if altered {
		data = bytes.Clone(m.sealed)
		data[c.rng.IntN(len(data))] ^= 1 << c.rng.IntN(8)
	}
	opened, err := s.Open(context.Background(), m.key.key, nil, m.nonce, data, m.aad)
	if err != nil && !(altered && errors.Is(err, aes.ErrOpen)) {
		return err
	}
	checkOpened(c, &m, altered, opened, err, "Server")
	return nil
}
