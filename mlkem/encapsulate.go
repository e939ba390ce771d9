package mlkem

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// Encapsulate768 encapsulates a new shared key to each ML-KEM-768
// encapsulation key, as crypto/mlkem's EncapsulationKey768.Encapsulate
// does: each element's randomness (32 bytes) comes from crypto/rand. It
// returns the shared keys and their ciphertexts. An encapsulation key of
// the wrong length (ErrEncapsulationKeyLength) or that fails the modulus
// check (ErrEncapsulationKey), where crypto/mlkem's NewEncapsulationKey768
// fails, has its error in the returned *batch.Error and nil results.
func (e *Engine) Encapsulate768(eks [][]byte) (shared, ciphertexts [][]byte, err error) {
	return e.encapsulate(mlkem768, eks, nil)
}

// Encapsulate1024 is Encapsulate768 for ML-KEM-1024.
func (e *Engine) Encapsulate1024(eks [][]byte) (shared, ciphertexts [][]byte, err error) {
	return e.encapsulate(mlkem1024, eks, nil)
}

// EncapsulateDerandomized768 is Encapsulate768 with the randomness of
// element i given, random[i] (RandomnessSize bytes; FIPS 203's message m):
// ML-KEM.Encaps_internal, byte for byte
// crypto/mlkem/mlkemtest.Encapsulate768(ek, random[i]), for known-answer
// tests. Randomness of the wrong length fails its element
// (ErrRandomnessLength).
func (e *Engine) EncapsulateDerandomized768(eks, random [][]byte) (shared, ciphertexts [][]byte, err error) {
	if len(random) != len(eks) {
		return nil, nil, fmt.Errorf("mlkem: %d encapsulation keys but %d randomness inputs", len(eks), len(random))
	}
	return e.encapsulate(mlkem768, eks, random)
}

// EncapsulateDerandomized1024 is EncapsulateDerandomized768 for
// ML-KEM-1024 (crypto/mlkem/mlkemtest.Encapsulate1024).
func (e *Engine) EncapsulateDerandomized1024(eks, random [][]byte) (shared, ciphertexts [][]byte, err error) {
	if len(random) != len(eks) {
		return nil, nil, fmt.Errorf("mlkem: %d encapsulation keys but %d randomness inputs", len(eks), len(random))
	}
	return e.encapsulate(mlkem1024, eks, random)
}

func (e *Engine) encapsulate(p *params, eks, random [][]byte) (shared, ciphertexts [][]byte, err error) {
	n := len(eks)
	j := &encapsulateJob{e: e, p: p, eks: eks, random: random,
		shared: engine.LaterSlice[[]byte](e.core, n), cts: engine.LaterSlice[[]byte](e.core, n), errs: engine.NewErrors(n)}
	plan := engine.Plan{Op: p.name + " encapsulation", N: n, Chunk: pipelineChunk, Depth: hostBoundDepth, PackInTurn: true}
	if err := e.core.Run(plan, j); err != nil {
		return nil, nil, err
	}
	return j.shared.Get(), j.cts.Get(), j.errs.Err()
}

// encapsulateJob is one call of an encapsulation (an engine.Job). random
// is nil for fresh randomness. An element's results are nil until it is
// computed, and stay nil when it has an error.
type encapsulateJob struct {
	e           *Engine
	p           *params
	eks, random [][]byte
	shared, cts *engine.Later[[][]byte]
	errs        *engine.Errors
}

// parse is crypto/mlkem's encapsulation key of ek, or the element's error.
func (p *params) parse(ek []byte) (encapsulator, error) {
	if err := p.encapsulationKeyLengthError(ek); err != nil {
		return nil, err
	}
	key, err := p.newEncapsulationKey(ek)
	if err != nil {
		return nil, fmt.Errorf("%w: %s (crypto/mlkem: %w)", ErrEncapsulationKey, p.name, err)
	}
	return key, nil
}

// CPU implements engine.Job: crypto/mlkem on all cores, each key parsed
// once for the consecutive elements that share it.
func (j *encapsulateJob) CPU(lo, hi int) {
	batch.Parallel(hi-lo, 16, func(a, b int) {
		shared, cts := j.shared.Get(), j.cts.Get()
		var key encapsulator
		var keyErr error
		for i := lo + a; i < lo+b; i++ {
			if i == lo+a || !sameKey(j.eks[i], j.eks[i-1], j.p.ekSize) {
				key, keyErr = j.p.parse(j.eks[i])
			}
			shared[i], cts[i] = nil, nil
			err := keyErr
			if err == nil && j.random != nil {
				err = randomnessError(j.random[i])
			}
			if err == nil {
				shared[i], cts[i], err = j.encapsulateOne(key, i)
			}
			j.errs.Set(i, err)
		}
	})
}

// encapsulateOne is crypto/mlkem's encapsulation of element i to key:
// with its randomness (mlkemtest's), or fresh.
func (j *encapsulateJob) encapsulateOne(key encapsulator, i int) (shared, ct []byte, err error) {
	if j.random != nil {
		if j.p.encapsulate == nil {
			return nil, nil, errNoDerandomized
		}
		return j.p.encapsulate(key, j.random[i])
	}
	shared, ct = key.Encapsulate()
	return shared, ct, nil
}

// Device implements engine.Job: the batch's table of keys and the
// messages up (the messages zeroed after the upload), a kernel that checks
// each key of the table and hashes it (and in the form MLKEM_MATRIX one
// that samples each key's Â), one that encapsulates, the verdicts, shared
// keys and ciphertexts back.
func (j *encapsulateJob) Device(ch *engine.Chunk) error {
	p := j.p
	n := ch.Hi - ch.Lo
	ekWords, ctWords := p.ekSize/4, p.ctSize/4
	end := ch.Step("pack")
	index, err := ch.Words(n)
	if err != nil {
		return err
	}
	table := j.keyTable(ch.Lo, index, ch.Scratch(n))
	entries := len(table.first)
	words, err := ch.Words(entries*ekWords + entries + 8*n + 8*n + ctWords*n)
	if err != nil {
		return err
	}
	keys, words := words[:entries*ekWords], words[entries*ekWords:]
	verdicts, words := words[:entries], words[entries:]
	messages, words := words[:8*n], words[8*n:]
	shared, cts := words[:8*n], words[8*n:]
	j.putKeys(ch.Lo, table, keys)
	j.putMessages(ch.Lo, messages)
	// the sampled elements' messages, for the result check (the staging
	// copy is zeroed after the upload)
	sample := ch.Sample()
	var kept []byte
	if j.random == nil && len(sample) > 0 {
		kept = ch.Scratch(RandomnessSize * len(sample))
		for s, i := range sample {
			copy(kept[s*RandomnessSize:(s+1)*RandomnessSize], wordBytes(messages[8*(i-ch.Lo):]))
		}
	}
	end()
	check, err := j.e.prog.Kernel(p.kernel + "_check")
	if err != nil {
		return err
	}
	encapsulate, err := j.e.prog.Kernel(p.kernel + "_encapsulate")
	if err != nil {
		return err
	}
	var matrix *device.Kernel
	if j.e.matrix {
		if matrix, err = j.e.prog.Kernel(p.kernel + "_matrix"); err != nil {
			return err
		}
	}
	ch.ZeroAfterUpload(wordBytes(messages))
	ch.Public(wordBytes(index))
	ch.Public(wordBytes(keys))
	ch.Public(wordBytes(verdicts))
	ch.Public(wordBytes(cts))
	err = ch.Run(func(cmds *device.Commands) error {
		dkeys, err := cmds.Upload(keys, false)
		if err != nil {
			return err
		}
		dindex, err := cmds.Upload(index, false)
		if err != nil {
			return err
		}
		dmessages, err := cmds.Upload(messages, true)
		if err != nil {
			return err
		}
		dhashes, err := cmds.Buffer(32*entries, false)
		if err != nil {
			return err
		}
		dverdicts, err := cmds.Buffer(4*entries, false)
		if err != nil {
			return err
		}
		dshared, err := cmds.Buffer(4*len(shared), true)
		if err != nil {
			return err
		}
		dcts, err := cmds.Buffer(4*len(cts), false)
		if err != nil {
			return err
		}
		if err := cmds.Launch(check, entries, WorkGroup, dhashes, dverdicts, dkeys, uint32(entries)); err != nil {
			return err
		}
		args := []any{dshared, dcts, dkeys}
		if matrix != nil {
			dmatrices, err := j.e.sampleMatrices(cmds, matrix, p, entries, dkeys, ekWords, 96*p.k, false)
			if err != nil {
				return err
			}
			args = append(args, dmatrices)
		}
		args = append(args, dhashes, dverdicts, dindex, dmessages, j.e.table, uint32(n))
		if err := cmds.Launch(encapsulate, n, WorkGroup, args...); err != nil {
			return err
		}
		if err := cmds.Read(dverdicts, wordBytes(verdicts)); err != nil {
			return err
		}
		if err := cmds.Read(dshared, wordBytes(shared)); err != nil {
			return err
		}
		return cmds.Read(dcts, wordBytes(cts))
	})
	if err != nil {
		return err
	}
	end = ch.Step("unpack")
	disagree := j.unpack(ch.Lo, index, verdicts, shared, cts)
	end()
	if disagree >= 0 {
		return fmt.Errorf("the device refused encapsulation key %d, which crypto/mlkem takes", disagree)
	}
	defer ch.Step("check")()
	return engine.Check(sample, func(i int) bool {
		if j.random != nil {
			return j.check(i, j.random[i])
		}
		s, _ := slices.BinarySearch(sample, i) // the sample is in order
		return j.check(i, kept[s*RandomnessSize:(s+1)*RandomnessSize])
	})
}

// check is the result check of element i, encapsulated with the
// randomness m: crypto/mlkem/mlkemtest's results, or its error (without
// mlkemtest, before Go 1.26, there is nothing to check with).
func (j *encapsulateJob) check(i int, m []byte) bool {
	if j.p.encapsulate == nil {
		return true
	}
	key, err := j.p.parse(j.eks[i])
	if err == nil {
		err = randomnessError(m)
	}
	if err != nil {
		return j.errs.Get(i) != nil
	}
	shared, ct, err := j.p.encapsulate(key, m)
	if err != nil {
		return false // mlkemtest refuses (FIPS 140-only mode): not checked here
	}
	defer clear(shared)
	return j.errs.Get(i) == nil && bytes.Equal(shared, j.shared.Get()[i]) && bytes.Equal(ct, j.cts.Get()[i])
}

// The host work of a device batch of encapsulations, in the steps of
// Device, each on its own so that it can be measured and tested without
// a device (host_bench_internal_test.go): the batch's elements are
// [lo, lo+len(index)), numbered from 0 within the batch.

// keyTable builds the batch's table of keys into index (a word for each
// element), with starts as scratch memory of a byte for each element.
func (j *encapsulateJob) keyTable(lo int, index []uint32, starts []byte) keyTable {
	return newKeyTable(len(index), func(k int) bool {
		return sameKey(j.eks[lo+k], j.eks[lo+k-1], j.p.ekSize)
	}, index, starts)
}

// putKeys writes the key of each entry of table into keys (ekSize/4
// words for each entry), zeros for a key of the wrong length.
func (j *encapsulateJob) putKeys(lo int, table keyTable, keys []uint32) {
	p := j.p
	batch.Parallel(len(table.first), hostChunk/4, func(a, b int) {
		putRecords(wordBytes(keys), p.ekSize, a, b, func(t int) []byte {
			if ek := j.eks[lo+table.first[t]]; len(ek) == p.ekSize {
				return ek
			}
			return nil // a key of the wrong length: zeros, never used
		})
	})
}

// putMessages writes each element's message into messages (8 words for
// each element): fresh from crypto/rand, or its given randomness (zeros
// for an element with an error), and sets each element's error that the
// host can see (the key's length, the randomness's).
func (j *encapsulateJob) putMessages(lo int, messages []uint32) {
	p := j.p
	batch.Parallel(len(messages)/8, hostChunk, func(a, b int) {
		if j.random == nil {
			rand.Read(wordBytes(messages[8*a : 8*b]))
		}
		for k := a; k < b; k++ {
			i := lo + k
			err := p.encapsulationKeyLengthError(j.eks[i])
			if err == nil && j.random != nil {
				if err = randomnessError(j.random[i]); err == nil {
					copy(wordBytes(messages[8*k:8*k+8]), j.random[i])
				}
			}
			if err != nil && j.random != nil {
				clear(messages[8*k : 8*k+8])
			}
			j.errs.Set(i, err)
		}
	})
}

// unpack turns the device's outputs into the results of the batch: each
// key's verdict (a word for each entry of the table), the shared keys (8
// words for each element) and the ciphertexts (ctSize/4 words for each
// element), the elements' errors as the CPU path has them. It returns an
// element whose key the device refused although crypto/mlkem takes it (a
// device fault), or −1.
//
// Each piece of the pass has its shared keys and its ciphertexts in one
// copy each of the device's, as unpackRecords hands them out; an element
// that fails gets no results, and its shared key is zeroed in the copy.
func (j *encapsulateJob) unpack(lo int, index, verdicts, shared, cts []uint32) (disagree int) {
	p := j.p
	ctWords := p.ctSize / 4
	var refused atomic.Int64
	refused.Store(-1)
	batch.Parallel(len(index), hostChunk, func(a, b int) {
		sharedOut, ctsOut := j.shared.Get(), j.cts.Get()
		keys := bytes.Clone(wordBytes(shared[8*a : 8*b]))
		cs := bytes.Clone(wordBytes(cts[ctWords*a : ctWords*b]))
		for k := a; k < b; k++ {
			i := lo + k
			if !j.unpacked(i, verdicts[index[k]], &refused) {
				clear(record(keys, k-a, SharedKeySize))
				continue
			}
			sharedOut[i] = record(keys, k-a, SharedKeySize)
			ctsOut[i] = record(cs, k-a, p.ctSize)
		}
	})
	return int(refused.Load())
}

// unpacked reports whether element i has results, given its key's
// verdict from the device (0: refused), and sets its error where the
// verdict gives it one. A key refused that crypto/mlkem takes is stored
// in refused.
func (j *encapsulateJob) unpacked(i int, verdict uint32, refused *atomic.Int64) bool {
	// a key of the wrong length is the element's error; a key that fails
	// the modulus check is, before its randomness (the CPU path's order)
	err := j.errs.Get(i)
	if err != nil && !errors.Is(err, ErrRandomnessLength) {
		return false
	}
	if verdict == 0 {
		err := j.p.modulusError(j.eks[i])
		if err == nil {
			refused.Store(int64(i)) // crypto/mlkem takes the key: a device fault
		}
		j.errs.Set(i, err)
		return false
	}
	return err == nil
}
