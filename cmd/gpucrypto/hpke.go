//go:build go1.26

package main

// This file is HPKE's part of the CLI: its group of `gpucrypto bench`
// (bench hpke) and its operation of `gpucrypto burnin`, in that order,
// each added to the tables of tables.go (HPKE has no rows of bench server
// and no soak operation). Both check and time against Go 1.26's
// crypto/hpke, hence the build tag. An algorithm new to the CLI adds one
// such file, named after it.

import (
	"bytes"
	stdecdh "crypto/ecdh"
	stdhpke "crypto/hpke"
	"crypto/rand"
	"flag"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/hpke"
)

// Its group of `gpucrypto bench`, bench hpke (benchGroups).

// The operations of bench hpke: Open and Seal of hpkeBenchMessage-byte
// messages to one key, with HKDF-SHA256 and AES-128-GCM, for each KEM.
var _ = benchGroups.add(benchGroup{
	name: "hpke", algorithm: "hpke",
	what: "batched HPKE Open and Seal (MLKEM768-X25519, ML-KEM-768, DHKEM(X25519); AES-128-GCM) vs crypto/hpke",
	ops: []string{"hpke-open", "hpke-seal", "hpke-mlkem768-open", "hpke-mlkem768-seal",
		"hpke-x25519-open", "hpke-x25519-seal"},
	gpuBatches: []int{1024, 65536, 262144}, cpuBatches: []int{64},
	batchNote: fmt.Sprintf("; messages of %d bytes to one key", hpkeBenchMessage),
	flags:     hpkeBenchFlags,
})

// hpkeBenchMessage is the plaintext length of bench hpke: 1 KiB.
const hpkeBenchMessage = 1024

// hpkeBenchKEM is an operation's KEM, ours and crypto/hpke's, and the
// size the report's bits column gives it.
type hpkeBenchKEM struct {
	kem  hpke.KEM
	std  func() stdhpke.KEM
	bits int
}

// hpkeBenchKEMOf is the KEM of op (hpke-open, hpke-mlkem768-seal, ...)
// and whether it opens.
func hpkeBenchKEMOf(op string) (k hpkeBenchKEM, open bool) {
	open = strings.HasSuffix(op, "-open")
	switch {
	case strings.HasPrefix(op, "hpke-mlkem768-"):
		return hpkeBenchKEM{hpke.MLKEM768, stdhpke.MLKEM768, 768}, open
	case strings.HasPrefix(op, "hpke-x25519-"):
		return hpkeBenchKEM{hpke.DHKEMX25519, func() stdhpke.KEM { return stdhpke.DHKEM(stdecdh.X25519()) }, 255}, open
	}
	return hpkeBenchKEM{hpke.MLKEM768X25519, stdhpke.MLKEM768X25519, 768}, open
}

// hpkeBenchFlags are the flags of bench hpke: none of its own.
func hpkeBenchFlags(fs *flag.FlagSet, alone bool) func() (benchPlan, error) {
	return func() (benchPlan, error) {
		return func(r *benchRun, op string, batches []int) []benchCase {
			k, open := hpkeBenchKEMOf(op)
			var cases []benchCase
			for _, n := range batches {
				cases = append(cases, benchCase{op: op, bits: k.bits, batch: n, measure: func() (benchResult, error) {
					e, err := benchEngineOf(r, hpke.NewEngine)
					if err != nil {
						return benchResult{}, err
					}
					return benchHPKE(e, k, open, op, n, r.dur)
				}})
			}
			return cases
		}, nil
	}
}

// benchHPKE measures Open (open) or Seal of n messages of
// hpkeBenchMessage random bytes to one key of k, made by crypto/hpke, under
// one info: Open of n ciphertexts crypto/hpke sealed (each a distinct
// encapsulation), Seal of n plaintexts (the first and last checked by
// crypto/hpke's Open). The CPU figure is crypto/hpke's Open or Seal of the
// same messages on all cores in the same run.
func benchHPKE(e *hpke.Engine, k hpkeBenchKEM, open bool, op string, n int, dur time.Duration) (benchResult, error) {
	suite := hpke.Suite{KEM: k.kem, KDF: hpke.HKDFSHA256, AEAD: hpke.AES128GCM}
	kdf, aead := stdhpke.HKDFSHA256(), stdhpke.AES128GCM()
	std, err := k.std().GenerateKey()
	if err != nil {
		return benchResult{}, fmt.Errorf("crypto/hpke: %w", err)
	}
	keyBytes, err := std.Bytes()
	if err != nil {
		return benchResult{}, fmt.Errorf("crypto/hpke: %w", err)
	}
	key, err := hpke.NewPrivateKey(k.kem, keyBytes)
	if err != nil {
		return benchResult{}, err
	}
	defer key.Close()
	info := []byte("gpucrypto bench hpke")
	plaintexts := make([][]byte, n)
	slab := make([]byte, n*hpkeBenchMessage)
	rand.Read(slab)
	for i := range plaintexts {
		plaintexts[i] = slab[i*hpkeBenchMessage : (i+1)*hpkeBenchMessage : (i+1)*hpkeBenchMessage]
	}
	// crypto/hpke's ciphertexts, for Open (and the CPU figure of Open): n
	// distinct ones, sealed by the engine and checked by crypto/hpke at the
	// ends, as making n with crypto/hpke would take longer than the run
	cts, err := e.Seal(suite, key.PublicKey(), info, plaintexts)
	if err != nil {
		return benchResult{}, err
	}
	for _, i := range []int{0, n - 1} {
		if pt, err := stdhpke.Open(std, kdf, aead, info, cts[i]); err != nil || !bytes.Equal(pt, plaintexts[i]) {
			return benchResult{}, fmt.Errorf("crypto/hpke does not open the engine's ciphertext %d to its plaintext (%v)", i, err)
		}
	}
	var call func() error
	var cpu func(i int)
	if open {
		call = func() error {
			got, err := e.Open(suite, key, info, cts)
			if err == nil && (!bytes.Equal(got[0], plaintexts[0]) || !bytes.Equal(got[n-1], plaintexts[n-1])) {
				err = fmt.Errorf("the engine opened a ciphertext to another plaintext")
			}
			return err
		}
		cpu = func(i int) { stdhpke.Open(std, kdf, aead, info, cts[i%n]) }
	} else {
		call = func() error {
			got, err := e.Seal(suite, key.PublicKey(), info, plaintexts)
			if err == nil {
				if pt, oerr := stdhpke.Open(std, kdf, aead, info, got[n-1]); oerr != nil || !bytes.Equal(pt, plaintexts[n-1]) {
					err = fmt.Errorf("crypto/hpke does not open the engine's ciphertext to its plaintext (%v)", oerr)
				}
			}
			return err
		}
		cpu = func(i int) { stdhpke.Seal(std.PublicKey(), kdf, aead, info, plaintexts[i%n]) }
	}
	run := func() (time.Duration, error) {
		t0 := e.Stats().DeviceTime
		if err := call(); err != nil {
			return 0, err
		}
		return e.Stats().DeviceTime - t0, nil
	}
	return measureEngine(e, op, k.bits, n, dur, run, cpu)
}

// Its operations of `gpucrypto burnin` (burninOps).

var _ = burninOps.add(burninOp{name: "hpke", algorithm: "hpke", batchGPU: 65536, batchCPU: 256, prepare: prepareHPKEBurnin})

// hpkeBurninSuite is the burn-in's suite: the gateway's, MLKEM768-X25519
// with HKDF-SHA256 and AES-128-GCM.
var hpkeBurninSuite = hpke.Suite{KEM: hpke.MLKEM768X25519, KDF: hpke.HKDFSHA256, AEAD: hpke.AES128GCM}

// hpkeBurninPlaintext is the longest plaintext of a case; hpkeCorruptEvery:
// the first case of each batch and about one in this many others have
// their ciphertext opened a second time with one bit changed, which must
// fail.
const (
	hpkeBurninPlaintext = 1024
	hpkeCorruptEvery    = 8
)

// prepareHPKEBurnin checks batched HPKE on the device. A batch is
// messages of 0 to hpkeBurninPlaintext random bytes to one new key under
// one random info: the device seals them (Engine.Seal, fresh randomness)
// and opens its ciphertexts (Engine.Open), which must give every
// plaintext back (a check of every case that needs no crypto/hpke). The
// first case of each batch and about one in hpkeCorruptEvery are opened
// again with one bit of the ciphertext changed, which must fail. A sample
// (--cpu-sample) is checked against crypto/hpke both ways: crypto/hpke
// opens the device's ciphertext to the plaintext and refuses the
// corrupted one, and the device opens crypto/hpke's ciphertext of the same
// plaintext (in the same Open call) to it.
func prepareHPKEBurnin(r *burninRun) (burninCheck, error) {
	e, err := burninEngineOf(r, hpke.NewEngine)
	if err != nil {
		return nil, err
	}
	return func(b *burninBatch) { checkHPKE(b, e) }, nil
}

// hpkeCase is one case of the burn-in: its plaintext, the device's
// ciphertext and what the device opened of it, the corrupted copy and the
// device's error for it (nil: no copy), and for a sampled case
// crypto/hpke's ciphertext and the device's plaintext of it.
type hpkeCase struct {
	plaintext, ciphertext, opened []byte
	sealErr, openErr              error
	corrupted                     []byte
	corruptedErr                  error
	stdCiphertext, stdOpened      []byte
	stdOpenErr                    error
}

func checkHPKE(b *burninBatch, e *hpke.Engine) {
	n := b.n
	std, err := stdhpke.MLKEM768X25519().NewPrivateKey(b.bytes(32))
	if err != nil {
		b.failAll("crypto/hpke's key", err)
		return
	}
	keyBytes, err := std.Bytes()
	if err != nil {
		b.failAll("crypto/hpke's key's bytes", err)
		return
	}
	key, err := hpke.NewPrivateKey(hpkeBurninSuite.KEM, keyBytes)
	clear(keyBytes)
	if err != nil {
		b.failAll("the key", err)
		return
	}
	defer key.Close()
	info := b.bytes(b.rng.IntN(33))
	plaintexts := make([][]byte, n)
	for i := range plaintexts {
		plaintexts[i] = b.bytes(b.rng.IntN(hpkeBurninPlaintext + 1))
	}
	cts, err := e.Seal(hpkeBurninSuite, key.PublicKey(), info, plaintexts)
	sealErrs, ok := elementErrors(err, n)
	if !ok {
		b.failAll("Seal", err)
		return
	}
	b.tamper(cts)
	// the device's Open: each ciphertext, right after it a corrupted copy
	// of some, and for a sampled case crypto/hpke's ciphertext of its
	// plaintext (at[i], corrupted[i], stdAt[i]: their indexes, or -1)
	sample := make([]bool, n)
	capacity := n + n/hpkeCorruptEvery + 8
	opens := make([][]byte, 0, capacity)
	at, corrupted, stdAt := make([]int, n), make([]int, n), make([]int, n)
	stdCTs := make([][]byte, n)
	for i := range n {
		sample[i] = b.sampled(i)
		ct := cts[i]
		if ct == nil {
			ct = []byte{} // opened too, for the shape: it fails
		}
		at[i], corrupted[i], stdAt[i] = len(opens), -1, -1
		opens = append(opens, ct)
		if len(ct) > 0 && (i == 0 || b.rng.IntN(hpkeCorruptEvery) == 0) {
			c := bytes.Clone(ct)
			c[b.rng.IntN(len(c))] ^= 1 << b.rng.IntN(8)
			corrupted[i] = len(opens)
			opens = append(opens, c)
		}
		if sample[i] {
			if stdCTs[i], err = stdhpke.Seal(std.PublicKey(), stdhpke.HKDFSHA256(), stdhpke.AES128GCM(), info, plaintexts[i]); err == nil {
				stdAt[i] = len(opens)
				opens = append(opens, stdCTs[i])
			}
		}
	}
	opened, err := e.Open(hpkeBurninSuite, key, info, opens)
	openErrs, ok := elementErrors(err, len(opens))
	if !ok {
		b.failAll("Open", err)
		return
	}
	var cpuChecked atomic.Int64
	batch.Parallel(n, 64, func(lo, hi int) {
		checked := int64(0)
		for i := lo; i < hi; i++ {
			c := hpkeCase{plaintext: plaintexts[i], ciphertext: cts[i], opened: opened[at[i]], sealErr: sealErrs[i], openErr: openErrs[at[i]]}
			if t := corrupted[i]; t >= 0 {
				c.corrupted, c.corruptedErr = opens[t], openErrs[t]
				if c.corruptedErr == nil {
					c.corruptedErr = errCorruptedOpened
				}
			}
			what, derr := c.verdict()
			if what == "" && sample[i] {
				checked++
				c.stdCiphertext = stdCTs[i]
				if t := stdAt[i]; t >= 0 {
					c.stdOpened, c.stdOpenErr = opened[t], openErrs[t]
				}
				what, derr = c.compare(std, info)
			}
			if what != "" {
				b.fail(i, what, hexMap("info", info, "plaintext", c.plaintext, "corrupted ciphertext", c.corrupted, "crypto/hpke's ciphertext", c.stdCiphertext),
					hexMap("ciphertext", c.ciphertext, "opened", c.opened, "opened crypto/hpke's", c.stdOpened), hexMap("opened", c.plaintext), derr)
			}
		}
		cpuChecked.Add(checked)
	})
	b.stats.cpuChecked.Add(cpuChecked.Load())
}

// errCorruptedOpened marks a corrupted ciphertext that the device opened.
var errCorruptedOpened = fmt.Errorf("a corrupted ciphertext opened")

// verdict judges a case from the device's answers alone: what is empty
// where they are right.
func (c *hpkeCase) verdict() (what string, err error) {
	switch {
	case c.sealErr != nil:
		return "the device failed to seal", c.sealErr
	case c.openErr != nil:
		return "the device failed to open its own ciphertext", c.openErr
	case c.opened == nil || !bytes.Equal(c.opened, c.plaintext):
		return "the device opened its own ciphertext to another plaintext", nil
	case c.corruptedErr == errCorruptedOpened:
		return "the device opened a corrupted ciphertext", nil
	}
	return "", nil
}

// compare checks a sampled case against crypto/hpke under its key std:
// what is empty where they agree.
func (c *hpkeCase) compare(std stdhpke.PrivateKey, info []byte) (what string, err error) {
	pt, err := stdhpke.Open(std, stdhpke.HKDFSHA256(), stdhpke.AES128GCM(), info, c.ciphertext)
	switch {
	case err != nil:
		return "crypto/hpke fails to open the device's ciphertext", err
	case !bytes.Equal(pt, c.plaintext):
		return "crypto/hpke opens the device's ciphertext to another plaintext", nil
	}
	if c.corrupted != nil {
		if _, err := stdhpke.Open(std, stdhpke.HKDFSHA256(), stdhpke.AES128GCM(), info, c.corrupted); err == nil {
			return "crypto/hpke opens the corrupted ciphertext the device refused", nil
		}
	}
	switch {
	case c.stdCiphertext == nil:
		return "crypto/hpke failed to seal the case's plaintext", nil
	case c.stdOpenErr != nil:
		return "the device fails to open crypto/hpke's ciphertext", c.stdOpenErr
	case c.stdOpened == nil || !bytes.Equal(c.stdOpened, c.plaintext):
		return "the device opens crypto/hpke's ciphertext to another plaintext", nil
	}
	return "", nil
}
