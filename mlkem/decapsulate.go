package mlkem

import (
	"bytes"
	"fmt"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// Decapsulate768 returns the shared key of each ML-KEM-768 ciphertext
// under its decapsulation key, given as its seed d ‖ z: byte for byte
// crypto/mlkem's NewDecapsulationKey768(seeds[i]).Decapsulate(ciphertexts[i]),
// the implicit-rejection key for a ciphertext that does not decrypt
// consistently. A seed not of SeedSize bytes (ErrSeedLength) or a
// ciphertext not of CiphertextSize768 bytes (ErrCiphertextLength) has its
// error in the returned *batch.Error and a nil key.
//
// Consecutive elements with the same seed (the requests of one key) share
// the key's expansion, on the device and on the CPU alike.
func (e *Engine) Decapsulate768(seeds, ciphertexts [][]byte) ([][]byte, error) {
	return e.decapsulate(mlkem768, seeds, ciphertexts)
}

// Decapsulate1024 is Decapsulate768 for ML-KEM-1024.
func (e *Engine) Decapsulate1024(seeds, ciphertexts [][]byte) ([][]byte, error) {
	return e.decapsulate(mlkem1024, seeds, ciphertexts)
}

func (e *Engine) decapsulate(p *params, seeds, cts [][]byte) ([][]byte, error) {
	if len(cts) != len(seeds) {
		return nil, fmt.Errorf("mlkem: %d decapsulation keys but %d ciphertexts", len(seeds), len(cts))
	}
	j := &decapsulateJob{e: e, p: p, seeds: seeds, cts: cts, out: engine.LaterSlice[[]byte](e.core, len(seeds)), errs: engine.NewErrors(len(seeds))}
	plan := engine.Plan{Op: p.name + " decapsulation", N: len(seeds), Chunk: pipelineChunk, Depth: hostBoundDepth, PackInTurn: true}
	if err := e.core.Run(plan, j); err != nil {
		return nil, err
	}
	return j.out.Get(), j.errs.Err()
}

// decapsulateJob is one call of Decapsulate768 or Decapsulate1024 (an
// engine.Job). An element's out is nil until it is computed, and stays nil
// when it has an error.
type decapsulateJob struct {
	e          *Engine
	p          *params
	seeds, cts [][]byte
	out        *engine.Later[[][]byte]
	errs       *engine.Errors
}

// elementError is element i's error: its seed's or its ciphertext's
// length.
func (j *decapsulateJob) elementError(i int) error {
	if err := j.p.seedError(j.seeds[i]); err != nil {
		return err
	}
	return j.p.ciphertextError(j.cts[i])
}

// CPU implements engine.Job: crypto/mlkem on all cores, each key expanded
// once for the consecutive elements that share it.
func (j *decapsulateJob) CPU(lo, hi int) {
	batch.Parallel(hi-lo, 16, func(a, b int) {
		out := j.out.Get()
		var key decapsulator
		var keySeed []byte // key's seed
		for i := lo + a; i < lo+b; i++ {
			out[i] = nil
			err := j.elementError(i)
			j.errs.Set(i, err)
			if err != nil {
				continue
			}
			if key == nil || !sameSeed(j.seeds[i], keySeed) {
				key, keySeed = j.key(i), j.seeds[i]
			}
			out[i] = j.decapsulateOne(key, i)
		}
	})
}

// key is crypto/mlkem's decapsulation key of element i's seed (of
// SeedSize bytes).
func (j *decapsulateJob) key(i int) decapsulator {
	key, err := j.p.newDecapsulationKey(j.seeds[i])
	if err != nil {
		panic("mlkem: crypto/mlkem refused a seed of SeedSize bytes: " + err.Error())
	}
	return key
}

// decapsulateOne is crypto/mlkem's shared key of element i's ciphertext
// (of the parameter set's size) under key.
func (j *decapsulateJob) decapsulateOne(key decapsulator, i int) []byte {
	shared, err := key.Decapsulate(j.cts[i])
	if err != nil {
		panic("mlkem: crypto/mlkem refused a ciphertext of its size: " + err.Error())
	}
	return shared
}

// check is the result check of element i.
func (j *decapsulateJob) check(i int) bool {
	if j.elementError(i) != nil {
		return j.errs.Get(i) != nil
	}
	want := j.decapsulateOne(j.key(i), i)
	defer clear(want)
	return j.errs.Get(i) == nil && bytes.Equal(want, j.out.Get()[i])
}

// Device implements engine.Job: the batch's table of seeds (zeroed after
// the upload) and the ciphertexts up, a kernel that expands each seed of
// the table into device memory (and in the form MLKEM_MATRIX one that
// samples each key's Â), one that decapsulates, the shared keys back.
func (j *decapsulateJob) Device(ch *engine.Chunk) error {
	p := j.p
	n := ch.Hi - ch.Lo
	ctWords := p.ctSize / 4
	end := ch.Step("pack")
	index, err := ch.Words(n)
	if err != nil {
		return err
	}
	table := newKeyTable(n, func(k int) bool {
		return sameSeed(j.seeds[ch.Lo+k], j.seeds[ch.Lo+k-1])
	}, index, ch.Scratch(n))
	entries := len(table.first)
	words, err := ch.Words(16*entries + ctWords*n + 8*n)
	if err != nil {
		return err
	}
	seeds, cts, shared := words[:16*entries], words[16*entries:16*entries+ctWords*n], words[16*entries+ctWords*n:]
	batch.Parallel(entries, hostChunk, func(a, b int) {
		putRecords(wordBytes(seeds), SeedSize, a, b, func(t int) []byte {
			if seed := j.seeds[ch.Lo+table.first[t]]; len(seed) == SeedSize {
				return seed
			}
			return nil // a seed of the wrong length: zeros, never used
		})
	})
	batch.Parallel(n, hostChunk, func(a, b int) {
		putRecords(wordBytes(cts), p.ctSize, a, b, func(k int) []byte {
			i := ch.Lo + k
			err := j.elementError(i)
			j.errs.Set(i, err)
			if err != nil {
				return nil
			}
			return j.cts[i]
		})
	})
	end()
	expand, err := j.e.prog.Kernel(p.kernel + "_expand")
	if err != nil {
		return err
	}
	decapsulate, err := j.e.prog.Kernel(p.kernel + "_decapsulate")
	if err != nil {
		return err
	}
	var matrix *device.Kernel
	if j.e.matrix {
		if matrix, err = j.e.prog.Kernel(p.kernel + "_matrix"); err != nil {
			return err
		}
	}
	ch.ZeroAfterUpload(wordBytes(seeds))
	ch.Public(wordBytes(index))
	ch.Public(wordBytes(cts))
	err = ch.Run(func(cmds *device.Commands) error {
		dseeds, err := cmds.Upload(seeds, true)
		if err != nil {
			return err
		}
		dindex, err := cmds.Upload(index, false)
		if err != nil {
			return err
		}
		dcts, err := cmds.Upload(cts, false)
		if err != nil {
			return err
		}
		dkeys, err := cmds.Buffer(p.expandedSize()*entries, true)
		if err != nil {
			return err
		}
		dshared, err := cmds.Buffer(4*len(shared), true)
		if err != nil {
			return err
		}
		expandArgs, args := []any{dkeys, dseeds}, []any{dshared, dkeys}
		if matrix != nil {
			dmatrices, err := j.e.sampleMatrices(cmds, matrix, p, entries, dseeds, SeedSize/4, 0, true)
			if err != nil {
				return err
			}
			expandArgs, args = append(expandArgs, dmatrices), append(args, dmatrices)
		}
		if err := cmds.Launch(expand, entries, WorkGroup, append(expandArgs, j.e.table, uint32(entries))...); err != nil {
			return err
		}
		args = append(args, dindex, dcts, j.e.table, uint32(n))
		if err := cmds.Launch(decapsulate, n, WorkGroup, args...); err != nil {
			return err
		}
		return cmds.Read(dshared, wordBytes(shared))
	})
	if err != nil {
		return err
	}
	end = ch.Step("unpack")
	j.unpack(ch.Lo, shared)
	end()
	defer ch.Step("check")()
	return engine.Check(ch.Sample(), j.check)
}

// unpack turns the device's shared keys (8 words for each element) into
// the results of the batch of the elements [lo, lo+len(shared)/8): an
// element with an error has none, and its shared key is zeroed in the
// copy (unpackRecords).
func (j *decapsulateJob) unpack(lo int, shared []uint32) {
	unpackRecords(wordBytes(shared), SharedKeySize, lo, j.out.Get(), j.errs, true)
}
