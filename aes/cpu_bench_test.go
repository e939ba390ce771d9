package aes_test

import (
	stdaes "crypto/aes"
	"crypto/cipher"
	"flag"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"golang.org/x/crypto/xts"

	"github.com/gpucrypto/gpucrypto/aes"
)

// The benchmarks here compare the CPU engine with crypto/cipher on all
// cores, on the shapes of `gpucrypto bench aes`: GCM batches of records
// under distinct keys, and one long CTR message. Both sides compute the
// same work with keys expanded beforehand; "go" spreads it over
// GOMAXPROCS goroutines in contiguous ranges, as a caller using
// crypto/cipher directly would, on the same buffers.
//
//	go test -run '^$' -bench 'CPUEngine' ./aes
//	go test -run '^$' -bench 'CPUEngineBulk/ctr' ./aes -aes.bulk-mb 1024
//
// The bulk benchmarks skip with -short.

var (
	benchBatchMB = flag.Int("aes.batch-mb", 16, "BenchmarkCPUEngineGCMSeal: MB of records per call")
	benchBulkMB  = flag.Int("aes.bulk-mb", 1024, "BenchmarkCPUEngineBulk: MB of the message")
)

// onAllCores runs f over [0, n) in contiguous ranges, one per core.
func onAllCores(n int, f func(lo, hi int)) {
	p := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range p {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(w*n/p, (w+1)*n/p)
		}()
	}
	wg.Wait()
}

func BenchmarkCPUEngineGCMSeal(b *testing.B) {
	for _, size := range []int{64, 1500, 16384} {
		count := max(1, (*benchBatchMB<<20)/size)
		msgs := make([]aes.Message, count)
		aeads := make([]cipher.AEAD, count)
		for i := range msgs {
			raw := randBytes(16)
			k, err := aes.NewKey(raw)
			if err != nil {
				b.Fatal(err)
			}
			block, _ := stdaes.NewCipher(raw)
			aeads[i], _ = cipher.NewGCM(block)
			msgs[i] = aes.Message{Key: k, Nonce: make([]byte, 12), AAD: make([]byte, 13), Data: make([]byte, size),
				Out: make([]byte, 0, size+aes.TagSize)}
		}
		b.Run(fmt.Sprintf("%dB/engine", size), func(b *testing.B) {
			e := aes.CPUEngine()
			defer e.Close()
			if _, err := e.Seal(msgs); err != nil { // a warm-up, as the bench's: each key makes its GCM on first use
				b.Fatal(err)
			}
			b.SetBytes(int64(size * count))
			for b.Loop() {
				if _, err := e.Seal(msgs); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("%dB/go", size), func(b *testing.B) {
			b.SetBytes(int64(size * count))
			for b.Loop() {
				onAllCores(count, func(lo, hi int) {
					for i := lo; i < hi; i++ {
						m := &msgs[i]
						aeads[i].Seal(m.Out[:0], m.Nonce, m.Data, m.AAD)
					}
				})
			}
		})
		// what the Go figure of gpucrypto bench aes computes: each core
		// seals one buffer of its own, over and over (in its cache), with
		// the messages' keys
		b.Run(fmt.Sprintf("%dB/go-core-buffer", size), func(b *testing.B) {
			bufs := make([][]byte, runtime.GOMAXPROCS(0))
			for i := range bufs {
				bufs[i] = make([]byte, size+aes.TagSize)
			}
			nonce, aad := make([]byte, 12), make([]byte, 13)
			b.SetBytes(int64(size * count))
			for b.Loop() {
				onAllCores(count, func(lo, hi int) {
					buf := bufs[lo*len(bufs)/count]
					for i := lo; i < hi; i++ {
						aeads[i].Seal(buf[:0], nonce, buf[:size], aad)
					}
				})
			}
		})
	}
}

// BenchmarkCPUEngineBulk is one long message of -aes.bulk-mb MB, in
// place: CTR, XTS in 4 KB sectors, CBC decryption, and GCM (one message:
// the CPU engine cuts it into pieces on all cores; Go's figure is 1 MB
// messages, one per core, as the bench's).
func BenchmarkCPUEngineBulk(b *testing.B) {
	if testing.Short() {
		b.Skip("a message of -aes.bulk-mb MB")
	}
	size := *benchBulkMB << 20
	raw := randBytes(32)
	k, err := aes.NewKey(raw[:16])
	if err != nil {
		b.Fatal(err)
	}
	xk, err := aes.NewXTSKey(raw)
	if err != nil {
		b.Fatal(err)
	}
	block, _ := stdaes.NewCipher(raw[:16])
	aead, _ := cipher.NewGCM(block)
	xc, _ := xts.NewCipher(stdaes.NewCipher, raw)
	buf := make([]byte, size+aes.TagSize)[:size]
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1 // its pages mapped before anything is timed
	}
	iv, nonce := make([]byte, 16), make([]byte, 12)
	const sector = 4096
	ops := []struct {
		name   string
		engine func(e *aes.Engine) error
		piece  func(p []byte, at int) // Go on one piece of the buffer from byte at
	}{
		{"ctr", func(e *aes.Engine) error { return e.XORKeyStream(k, iv, buf, buf) },
			func(p []byte, at int) { cipher.NewCTR(block, iv).XORKeyStream(p, p) }},
		{"xts", func(e *aes.Engine) error { return e.EncryptSectors(xk, buf, buf, sector, 0) },
			func(p []byte, at int) {
				for s := 0; s < len(p); s += sector {
					xc.Encrypt(p[s:s+sector], p[s:s+sector], uint64((at+s)/sector))
				}
			}},
		{"cbc-decrypt", func(e *aes.Engine) error {
			_, err := e.DecryptCBC([]aes.CBCMessage{{Key: k, IV: iv, Data: buf, Out: buf[:0]}})
			return err
		}, func(p []byte, at int) { cipher.NewCBCDecrypter(block, iv).CryptBlocks(p, p) }},
		{"gcm-seal", func(e *aes.Engine) error {
			_, err := e.Seal([]aes.Message{{Key: k, Nonce: nonce, Data: buf, Out: buf[:0]}})
			return err
		}, func(p []byte, at int) { aead.Seal(p[:0], nonce, p[:len(p)-aes.TagSize], nil) }},
	}
	for _, op := range ops {
		b.Run(op.name+"/engine", func(b *testing.B) {
			e := aes.CPUEngine()
			defer e.Close()
			if err := op.engine(e); err != nil { // a warm-up
				b.Fatal(err)
			}
			b.SetBytes(int64(size))
			for b.Loop() {
				if err := op.engine(e); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(op.name+"/go", func(b *testing.B) {
			// 1 MB pieces on all cores, each with its own cipher call
			const piece = 1 << 20
			pieces := (size + piece - 1) / piece
			b.SetBytes(int64(size))
			for b.Loop() {
				onAllCores(pieces, func(lo, hi int) {
					for p := lo; p < hi; p++ {
						op.piece(buf[p*piece:min((p+1)*piece, size)], p*piece)
					}
				})
			}
		})
	}
}
