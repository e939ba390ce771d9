package ecdsa

import (
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdsa"
	"crypto/rand"
	"fmt"
	"io"
	"math/big"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// SignASN1 signs hashes[i] with keys[i] as crypto/ecdsa.SignASN1 does and
// returns ASN.1 DER signatures: nonces "hedged" as crypto/ecdsa makes
// them (32 random bytes from rand, mixed with the key and the hash by
// HMAC_DRBG; the device derives them, kernels/hmac_drbg.h, and the host
// only reads the random bytes), so a signature leaks nothing even when
// rand is poor, and every signature verifies under crypto/ecdsa. A nil
// rand or crypto/rand.Reader gives each range of elements an AES-256
// counter-mode generator keyed from crypto/rand, as Go's crypto/rand is in
// FIPS 140-3 mode (randomRows). (Go 1.26's crypto/ecdsa reads crypto/rand
// whatever reader it is given, unless GODEBUG=cryptocustomrand=1; this
// reads the one it is given, for the elements the device signs.) An
// element whose key cannot sign has its error in the returned
// *batch.Error and a nil signature: crypto/ecdsa's for a key it refuses
// (a scalar not in [1, n), a public point off the curve), ErrNilKey or
// ErrIncompleteKey for one it would panic on, ErrCurve for a key on
// another curve than P-256. The device computes in constant time in the
// nonces, random bytes and keys (kernels/ecdsa.cl), and the host buffers
// that held them are zeroed.
func (e *Engine) SignASN1(rand io.Reader, keys []*ecdsa.PrivateKey, hashes [][]byte) ([][]byte, error) {
	return e.sign(rand, keys, hashes, nil, false, ASN1)
}

// SignP1363 is SignASN1 with signatures in IEEE P1363's form, r ‖ s (32
// bytes each for P-256).
func (e *Engine) SignP1363(rand io.Reader, keys []*ecdsa.PrivateKey, hashes [][]byte) ([][]byte, error) {
	return e.sign(rand, keys, hashes, nil, false, P1363)
}

// SignASN1Into is SignASN1 writing the signature of hashes[i] into out[i],
// which the caller owns: a caller that passes the last call's outputs
// back allocates nothing per element, and a large call leaves no garbage
// behind it. The signatures, nonces and errors are SignASN1's.
//
// out[i] is set as out[i] = append(out[i][:0], signature...) would set it,
// with one difference: out[i]'s backing array is written over when its
// capacity is at least MaxASN1Size, whatever the signature's length;
// otherwise out[i] gets a new slice of that capacity, so that the next
// call with the same outputs writes in place whatever its signatures'
// lengths (DER's vary: 70 to 72 bytes for P-256, fewer rarely). A nil
// out[i] is thus fine on a first call (the device's signatures that need
// new slices take pieces of one allocation per range of elements). An
// element that fails has its error in the returned *batch.Error and
// out[i] set to out[i][:0] (the bytes past its length are not cleared:
// they held a signature, which is public). A call that fails as a whole
// (keys, hashes and out of different lengths, a reader that fails, a
// closed engine) returns its error with no out[i] touched.
//
// While the call runs, out and the memory of its elements are the
// engine's: it writes them from several goroutines, and a batch that the
// device fails may be written twice. The caller must neither read nor
// write them until the call returns, and out[i] must not overlap out[j]
// (j ≠ i) or any hash: overlapping outputs give wrong signatures (or a
// fallback to the CPU that signs what was overwritten), and are the
// caller's to avoid.
func (e *Engine) SignASN1Into(rand io.Reader, keys []*ecdsa.PrivateKey, hashes, out [][]byte) error {
	_, err := e.sign(rand, keys, hashes, out, true, ASN1)
	return err
}

// SignP1363Into is SignASN1Into with signatures in IEEE P1363's form,
// r ‖ s: out[i]'s backing array is written over when its capacity is at
// least P1363Size, else out[i] gets a new slice of that capacity.
func (e *Engine) SignP1363Into(rand io.Reader, keys []*ecdsa.PrivateKey, hashes, out [][]byte) error {
	_, err := e.sign(rand, keys, hashes, out, true, P1363)
	return err
}

// sign is a call of SignASN1, SignP1363 (into false: new signatures,
// returned) or their Into forms (into: written into out).
func (e *Engine) sign(random io.Reader, keys []*ecdsa.PrivateKey, hashes, out [][]byte, into bool, form Form) ([][]byte, error) {
	if into && (len(hashes) != len(keys) || len(out) != len(keys)) {
		return nil, fmt.Errorf("ecdsa: %d private keys, %d hashes and %d outputs", len(keys), len(hashes), len(out))
	}
	if len(hashes) != len(keys) {
		return nil, fmt.Errorf("ecdsa: %d private keys but %d hashes", len(keys), len(hashes))
	}
	var z []byte // nil: each batch makes its elements' (signJob.random)
	if random != nil && random != rand.Reader {
		// the caller's reader, read in the elements' order (a seeded one
		// gives the same signatures every time) and once, not once per
		// element
		end := e.core.Step("random")
		z = make([]byte, 32*len(keys))
		err := readRandom(random, z)
		end()
		if err != nil {
			return nil, err
		}
		defer clear(z)
	}
	j := &signJob{form: form, keys: keys, hashes: hashes, random: z, into: into}
	if into {
		j.out = engine.Ready(out)
	} else {
		j.out = engine.LaterSlice[[]byte](e.core, len(keys))
	}
	if err := e.runSign(j); err != nil {
		return nil, err
	}
	return j.out.Get(), j.errs.Err()
}

// signBatch signs hashes[i] with keys[i] in form, with hedged nonces from
// the 32 bytes of random each element has (nil random: randomRows's,
// made by the batches), or RFC 6979's (deterministic): the signatures
// (new ones), the elements' errors, and the call's.
func (e *Engine) signBatch(form Form, deterministic bool, keys []*ecdsa.PrivateKey, hashes [][]byte, random []byte) ([][]byte, *engine.Errors, error) {
	j := &signJob{form: form, deterministic: deterministic, keys: keys, hashes: hashes, random: random,
		out: engine.LaterSlice[[]byte](e.core, len(keys))}
	err := e.runSign(j)
	return j.out.Get(), j.errs, err
}

// runSign runs the signing job j, whose inputs and outputs are set, on e.
func (e *Engine) runSign(j *signJob) error {
	j.e, j.errs = e, engine.NewErrors(len(j.keys))
	return e.core.Run(planFor("ECDSA P-256 sign", len(j.keys), hostBoundDepth), j)
}

// signJob is one call of SignASN1 or SignP1363, or of their Into forms
// (an engine.Job). random
// holds 32 random bytes per element, from which the device derives the
// hedged nonces; nil, each batch makes them (randomRows) as it packs its
// elements, on all cores and beside the device's work on other batches (a
// million elements' 32 MB, read from crypto/rand up front on one core,
// took longer than the kernels). With deterministic (the self-test's known answers, the
// Server's Signer with a nil reader) the nonces are RFC 6979's for
// SHA-256 hashes instead, derived on the host (deterministicNonce) for the
// device, and crypto/ecdsa's PrivateKey.Sign with a nil source on the
// CPU.
type signJob struct {
	e      *Engine
	form   Form
	keys   []*ecdsa.PrivateKey
	hashes [][]byte
	random []byte
	// deterministic: RFC 6979's nonces (hashes of 32 bytes, SHA-256)
	deterministic bool
	// out is nil for an element until it is signed, and stays nil when it
	// has an error, its signatures new slices (made beside the first
	// batches); with into, it is the caller's outputs (SignASN1Into),
	// each written as appendOutput says, out[i][:0] for an error.
	out  *engine.Later[[][]byte]
	into bool
	errs *engine.Errors
}

// MaxASN1Size is the length of the longest ASN.1 DER signature of P-256
// (a SEQUENCE of two INTEGERs of 33 bytes, each a leading zero before a
// top bit set): an output of SignASN1Into with this capacity takes any of
// its signatures in place.
const MaxASN1Size = 2 + 2*(2+33)

// P1363Size is the length of a P-256 signature in IEEE P1363's form,
// r ‖ s: an output of SignP1363Into with this capacity takes its
// signatures in place.
const P1363Size = 64

// outputSize is the capacity an output of j's form must have to be
// written in place (SignASN1Into, SignP1363Into), and the capacity of the
// new ones.
func (j *signJob) outputSize() int {
	if j.form == P1363 {
		return P1363Size
	}
	return MaxASN1Size
}

// appendOutput is sig written into dst (an element's output of an Into
// form) as SignASN1Into says: in dst's backing array if its capacity is
// at least size, else in a new slice of that capacity (of len(sig), were
// it longer: never for P-256, the one curve signed).
func appendOutput(dst, sig []byte, size int) []byte {
	if need := max(size, len(sig)); cap(dst) < need {
		dst = make([]byte, 0, need)
	}
	return append(dst[:0], sig...)
}

// cryptoRand is the source of a nil reader.
var cryptoRand io.Reader = rand.Reader

// signCPU signs element i with crypto/ecdsa (with crypto/rand's bytes,
// whatever the call's source: Go 1.26's crypto/ecdsa uses them for any
// reader unless GODEBUG=cryptocustomrand=1), into its output with into
// (appendOutput).
func (j *signJob) signCPU(i int) {
	out := j.out.Get()
	if j.into {
		out[i] = out[i][:0]
	} else {
		out[i] = nil
	}
	sig, err := signOnHost(j.keys[i], j.hashes[i], j.form, j.deterministic)
	j.errs.Set(i, err)
	if err != nil {
		return
	}
	if j.into {
		sig = appendOutput(out[i], sig, j.outputSize())
	}
	out[i] = sig
}

// signOnHost is crypto/ecdsa's signature of hash under key in form: RFC
// 6979's where deterministic, else hedged from crypto/rand (signCPU says
// why crypto/rand).
func signOnHost(key *ecdsa.PrivateKey, hash []byte, form Form, deterministic bool) ([]byte, error) {
	if err := checkPrivate(key); err != nil {
		return nil, err
	}
	var sig []byte
	var err error
	if deterministic {
		sig, err = key.Sign(nil, hash, crypto.SHA256)
	} else {
		sig, err = ecdsa.SignASN1(rand.Reader, key, hash)
	}
	if err != nil {
		return nil, err
	}
	if form == P1363 {
		r, s, _ := parseASN1(sig)
		size := (key.Curve.Params().N.BitLen() + 7) / 8
		sig = make([]byte, 2*size)
		new(big.Int).SetBytes(r).FillBytes(sig[:size])
		new(big.Int).SetBytes(s).FillBytes(sig[size:])
	}
	return sig, nil
}

// CPU implements engine.Job: crypto/ecdsa on all cores.
func (j *signJob) CPU(lo, hi int) {
	batch.Parallel(hi-lo, 16, func(a, b int) {
		for i := lo + a; i < lo+b; i++ {
			j.signCPU(i)
		}
	})
}

// check is the result check of element i: the signature written (the
// new one, or the caller's output with into) verifies under crypto/ecdsa
// (signatures are randomized: there is no other to compare).
// An element's error came from crypto/ecdsa on the host, not the device.
func (j *signJob) check(i int) bool {
	if j.errs.Get(i) != nil {
		return true
	}
	ok, err := verifyCPU(&j.keys[i].PublicKey, j.hashes[i], j.out.Get()[i], j.form)
	return err == nil && ok
}

// keyInputs are a private key's values for the kernel: d and the public
// point in the rows' limbs, and ok false where the host answers the
// element (a nil key, another curve: an error; a scalar or coordinate
// crypto/ecdsa refuses: its own error), whose values are then zeros.
type keyInputs struct {
	d, x, y limbs
	ok      bool
}

// inputsOf are key's inputs, converted from its big.Ints once per batch
// range (keys repeat: a server signs with few keys), kept in cache.
func inputsOf(key *ecdsa.PrivateKey, cache map[*ecdsa.PrivateKey]*keyInputs) *keyInputs {
	if in, found := cache[key]; found {
		return in
	}
	in := &keyInputs{}
	cache[key] = in
	if checkPrivate(key) != nil || key.D.Sign() < 0 || key.D.BitLen() > 256 {
		return in
	}
	var d [32]byte
	defer clear(d[:])
	key.D.FillBytes(d[:])
	x, okX := coordinateLimbs(key.X)
	y, okY := coordinateLimbs(key.Y)
	if in.ok = validScalar(&d) && okX && okY; in.ok {
		in.d, in.x, in.y = limbsOf(&d), x, y
	}
	return in
}

// The row sets of the signing kernel's inputs (pack): the secret ones
// (the nonce's source and d), the public point and the hash's integer.
const (
	rowNonce = iota // Z, or with deterministic RFC 6979's k
	rowD
	rowX
	rowY
	rowE
	signRows
)

// pack writes the kernel's inputs of elements [a, b) of the batch ch into
// the rows (rows[r] holds row set r: 8 rows of n words), tile elements at
// a time: each row then takes runs of neighbouring words instead of one
// scattered word per element. The keys' limbs go from their cached
// inputs to the rows, and the random bytes (without random) straight
// into the nonce rows (randomRows): no copy of either is made on the
// way. onDevice[k] says whether element k is the kernel's;
// the others get zeros.
func (j *signJob) pack(ch *engine.Chunk, rows *[signRows][]uint32, onDevice []bool, a, b int) {
	n := ch.Hi - ch.Lo
	cache := map[*ecdsa.PrivateKey]*keyInputs{}
	var keys [tile]*keyInputs
	var nonces, hashes [tile]limbs
	defer func() { // they held nonces and keys (a panic included: the batch is recomputed)
		clear(nonces[:])
		for _, in := range cache {
			clear(in.d[:])
		}
	}()
	fresh := j.random == nil && !j.deterministic
	if fresh {
		randomRows(rows[rowNonce], n, a, b)
	}
	for t := a; t < b; t += tile {
		m := min(tile, b-t)
		for e := range m {
			k := t + e
			i := ch.Lo + k
			in := inputsOf(j.keys[i], cache)
			onDevice[k], keys[e] = in.ok, in
			if !in.ok {
				nonces[e], hashes[e] = limbs{}, limbs{}
				continue
			}
			hashes[e] = hashLimbs(j.hashes[i])
			switch {
			case j.deterministic:
				nonces[e] = deterministicNonceOf(&in.d, j.hashes[i])
			case !fresh:
				nonces[e] = limbsOf((*[32]byte)(j.random[32*i:]))
			}
		}
		putKeys(rows, n, t, keys[:m])
		putTile(rows[rowE], n, t, hashes[:m])
		if fresh {
			clearUnsigned(rows[rowNonce], n, t, keys[:m])
		} else {
			putTile(rows[rowNonce], n, t, nonces[:m])
		}
	}
}

// deterministicNonceOf is RFC 6979's nonce (deterministicNonce) for the
// scalar d, in limbs; the bytes of d it makes for the DRBG are zeroed.
func deterministicNonceOf(d *limbs, hash []byte) limbs {
	scalar := d.bytes()
	defer clear(scalar[:])
	k := deterministicNonce(scalar[:], hash)
	defer clear(k[:])
	return limbsOf(&k)
}

// Device implements engine.Job: keys, random bytes (or RFC 6979's nonces)
// and hashes up (the secret ones zeroed behind their upload), two kernels
// (R = k·G per signature, the kernel deriving the hedged nonces, then
// (r, s) per group of signatures sharing their inversions), with RFC
// 6979's nonces a third, the fault check (ecdsa_p256_sign_check: R
// computed again, and a signature refused where the two disagree), and
// (r, s) back; elements the kernel cannot sign (see inputsOf, and a key
// off the curve, for which it answers zeros) or whose signature the
// check refused are signed on the CPU.
//
// Hedged nonces are not checked: a fault there gives a signature with a
// wrong R, but with a nonce that no other signature has (fresh random
// bytes each time), so no two of its equations share a nonce; and the
// check's second comb would add about what the signing comb costs to
// every signature.
func (j *signJob) Device(ch *engine.Chunk) error {
	n := ch.Hi - ch.Lo
	faultWords := 0 // the tests' fault injection (Engine.inject)
	if j.e.inject {
		faultWords = n
	}
	words, err := ch.Words(16*n + 16*n + 8*n + 16*n + faultWords)
	if err != nil {
		return err
	}
	secrets, keys, hashes, sigs := words[:16*n], words[16*n:32*n], words[32*n:40*n], words[40*n:56*n]
	faults := words[56*n:]
	for k := range faults {
		faults[k] = 0
		if j.e.faults != nil {
			faults[k] = j.e.faults(ch.Lo + k)
		}
	}
	onDevice := make([]bool, n)
	rows := [signRows][]uint32{rowNonce: secrets[:8*n], rowD: secrets[8*n:], rowX: keys[:8*n], rowY: keys[8*n:], rowE: hashes}
	end := ch.Step("pack")
	batch.Parallel(n, hostChunk, func(a, b int) { j.pack(ch, &rows, onDevice, a, b) })
	end()
	pointKernel, err := j.e.prog.Kernel("ecdsa_p256_sign_point")
	if err != nil {
		return err
	}
	finishKernel, err := j.e.prog.Kernel("ecdsa_p256_sign_finish")
	if err != nil {
		return err
	}
	checkKernel, err := j.e.prog.Kernel("ecdsa_p256_sign_check")
	if err != nil {
		return err
	}
	check := j.deterministic && j.e.faultCheck
	groups := inversionGroups(n)
	deriveNonces := uint32(1) // the kernel's argument derive_nonces
	if j.deterministic {
		deriveNonces = 0
	}
	ch.ZeroAfterUpload(device.Uint32Bytes(secrets))
	ch.Public(device.Uint32Bytes(words[16*n:])) // the public points, hashes, signatures and faults
	err = ch.Run(func(cmds *device.Commands) error {
		dsecrets, err := cmds.Upload(secrets, true)
		if err != nil {
			return err
		}
		dkeys, err := cmds.Upload(keys, false)
		if err != nil {
			return err
		}
		dhashes, err := cmds.Upload(hashes, false)
		if err != nil {
			return err
		}
		dpoints, err := cmds.Buffer(4*24*n, true) // R's coordinates and k: secret
		if err != nil {
			return err
		}
		// the running products of Z and of k until the last pass (for a
		// group of one element, k·R itself): secret
		dsigs, err := cmds.Buffer(4*16*n, true)
		if err != nil {
			return err
		}
		pointArgs := []any{dpoints, dkeys, dsecrets, dhashes, j.e.comb, uint32(n), deriveNonces}
		if j.e.inject {
			dfaults, err := cmds.Upload(faults, false)
			if err != nil {
				return err
			}
			pointArgs = append(pointArgs, dfaults)
		}
		if err := cmds.Launch(pointKernel, n, WorkGroup, pointArgs...); err != nil {
			return err
		}
		if err := cmds.Launch(finishKernel, groups, WorkGroup, dsigs, dpoints, dsecrets, dhashes, uint32(n), uint32(groups)); err != nil {
			return err
		}
		if check {
			if err := cmds.Launch(checkKernel, n, WorkGroup, dsigs, dsecrets, dhashes, j.e.check, uint32(n)); err != nil {
				return err
			}
		}
		return cmds.Read(dsigs, device.Uint32Bytes(sigs))
	})
	if err != nil {
		return err
	}
	end = ch.Step("unpack")
	batch.Parallel(n, hostChunk, func(a, b int) { j.unpack(ch, sigs, onDevice, a, b) })
	end()
	defer ch.Step("check")()
	return engine.Check(ch.Sample(), j.check)
}

// unpack turns the kernel's (r, s) of elements [a, b) of the batch ch
// into signatures, a tile at a time; elements the kernel did not sign
// (onDevice false, or zeros: a key off the curve) are signed by
// crypto/ecdsa, for its own answer and error, and so are those whose
// signature the fault check refused (refusedS), which are counted
// (batch.Stats.Faults). Without into the
// signatures take one allocation (their bytes one after the other); with
// into they are written into the caller's outputs, and those short of
// outputSize's capacity get pieces of one allocation made for the rest of
// the range when the first of them comes: nothing is allocated for
// outputs passed back from an earlier call.
func (j *signJob) unpack(ch *engine.Chunk, sigs []uint32, onDevice []bool, a, b int) {
	n := ch.Hi - ch.Lo
	size := j.outputSize()
	out := j.out.Get()
	var slab, spare []byte
	if !j.into {
		slab = make([]byte, 0, (b-a)*size)
	}
	var r, s [tile][32]byte
	for t := a; t < b; t += tile {
		m := min(tile, b-t)
		getTile(r[:m], sigs[:8*n], n, t)
		getTile(s[:m], sigs[8*n:], n, t)
		for e := range m {
			k, i := t+e, ch.Lo+t+e
			if !onDevice[k] || r[e] == [32]byte{} || s[e] == [32]byte{} {
				if onDevice[k] && r[e] == [32]byte{} && s[e] == refusedS {
					ch.Fault()
				}
				j.signCPU(i) // crypto/ecdsa's own answer and error
				continue
			}
			j.errs.Set(i, nil)
			if j.into {
				dst := out[i][:0]
				if cap(dst) < size {
					if len(spare) < size {
						spare = make([]byte, (b-k)*size)
					}
					dst, spare = spare[:0:size], spare[size:]
				}
				out[i] = j.appendSignature(dst, &r[e], &s[e])
				continue
			}
			start := len(slab)
			slab = j.appendSignature(slab, &r[e], &s[e])
			out[i] = slab[start:len(slab):len(slab)]
		}
	}
}

// refusedS is the s of a signature that the fault check refused
// (ecdsa_p256_sign_check), whose r is 0: the number 1 in 32 big-endian
// bytes, an s the signing kernels never give with r = 0.
var refusedS = [32]byte{31: 1}

// appendSignature appends the signature (r, s) in j's form to b: without
// allocating where b's capacity holds outputSize more bytes.
func (j *signJob) appendSignature(b []byte, r, s *[32]byte) []byte {
	if j.form == P1363 {
		return append(append(b, r[:]...), s[:]...)
	}
	return appendASN1(b, r, s)
}

// randomRows fills elements [a, b) of the limb-major rows words (8 rows
// of n words) with random bytes: the keystream of AES-256 in counter mode
// under a key and a first counter block read from crypto/rand for this
// range, the generator of NIST SP 800-90A's CTR_DRBG (Go's crypto/rand is
// one in FIPS 140-3 mode). crypto/rand read for every element (the
// getrandom vDSO) would take most of the signing pack's host time, and
// the keystream costs a small part of that. The bytes feed the hedged
// nonces only (nonce.go): were they predictable, or the key schedule
// that crypto/aes keeps and this cannot zero read later, the nonces
// would still be derived from the private key and the hash, as
// RFC 6979's are.
func randomRows(words []uint32, n, a, b int) {
	var seed [32 + aes.BlockSize]byte
	rand.Read(seed[:]) // crypto/rand.Read never fails (it crashes the program instead)
	block, err := aes.NewCipher(seed[:32])
	if err != nil {
		panic(err) // a 32-byte key: never
	}
	stream := cipher.NewCTR(block, seed[32:])
	clear(seed[:])
	for w := range 8 {
		row := device.Uint32Bytes(words[w*n+a : w*n+b])
		clear(row)
		stream.XORKeyStream(row, row)
	}
}

// clearUnsigned zeroes, in the limb-major rows words, the values of the
// elements t, t+1, … that the kernel does not sign (keys[e].ok false):
// they get zeros, as every row of theirs.
func clearUnsigned(words []uint32, n, t int, keys []*keyInputs) {
	for e, in := range keys {
		if !in.ok {
			for w := range 8 {
				words[w*n+t+e] = 0
			}
		}
	}
}

// putKeys writes the keys' limbs into the rows of d, x and y as elements
// t, t+1, …, each limb of the three in one pass (putTile for three row
// sets, from the cached inputs without copying them first).
func putKeys(rows *[signRows][]uint32, n, t int, keys []*keyInputs) {
	for w := range 8 {
		d := rows[rowD][w*n+t:][:len(keys)]
		x := rows[rowX][w*n+t:][:len(keys)]
		y := rows[rowY][w*n+t:][:len(keys)]
		for e, in := range keys {
			d[e], x[e], y[e] = in.d[w], in.x[w], in.y[w]
		}
	}
}
