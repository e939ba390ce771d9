//go:build go1.26

package main

import (
	"bytes"
	stdecdh "crypto/ecdh"
	stdhpke "crypto/hpke"
	"crypto/rand"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/gpucrypto/gpucrypto/hpke"
)

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
