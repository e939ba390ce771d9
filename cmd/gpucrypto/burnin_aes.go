package main

import (
	"bytes"
	stdaes "crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"errors"

	"golang.org/x/crypto/xts"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/batch"
)

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
