package mlkem

import (
	"bytes"
	"crypto/rand"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// KeyGen768 returns the ML-KEM-768 encapsulation key of each decapsulation
// key seed d ‖ z, byte for byte crypto/mlkem's
// NewDecapsulationKey768(seed).EncapsulationKey().Bytes(). A seed not of
// SeedSize bytes has its error (ErrSeedLength) in the returned
// *batch.Error and a nil key.
func (e *Engine) KeyGen768(seeds [][]byte) ([][]byte, error) { return e.keyGen(mlkem768, seeds) }

// KeyGen1024 is KeyGen768 for ML-KEM-1024.
func (e *Engine) KeyGen1024(seeds [][]byte) ([][]byte, error) { return e.keyGen(mlkem1024, seeds) }

// GenerateKeys768 draws n new decapsulation key seeds from crypto/rand and
// returns them with their ML-KEM-768 encapsulation keys (KeyGen768), as n
// calls of crypto/mlkem's GenerateKey768 would. The seeds are secret.
func (e *Engine) GenerateKeys768(n int) (seeds, eks [][]byte, err error) {
	return e.generateKeys(mlkem768, n)
}

// GenerateKeys1024 is GenerateKeys768 for ML-KEM-1024.
func (e *Engine) GenerateKeys1024(n int) (seeds, eks [][]byte, err error) {
	return e.generateKeys(mlkem1024, n)
}

func (e *Engine) generateKeys(p *params, n int) (seeds, eks [][]byte, err error) {
	all := make([]byte, max(n, 0)*SeedSize)
	batch.Parallel(max(n, 0), hostChunk, func(a, b int) { rand.Read(all[a*SeedSize : b*SeedSize]) })
	seeds = make([][]byte, max(n, 0))
	for i := range seeds {
		seeds[i] = all[i*SeedSize : (i+1)*SeedSize : (i+1)*SeedSize]
	}
	eks, err = e.keyGen(p, seeds)
	if err != nil {
		clear(all)
		return nil, nil, err
	}
	return seeds, eks, nil
}

func (e *Engine) keyGen(p *params, seeds [][]byte) ([][]byte, error) {
	j := &keyGenJob{e: e, p: p, seeds: seeds, out: engine.LaterSlice[[]byte](e.core, len(seeds)), errs: engine.NewErrors(len(seeds))}
	plan := engine.Plan{Op: p.name + " key generation", N: len(seeds), Chunk: pipelineChunk, Depth: hostBoundDepth, PackInTurn: true}
	if err := e.core.Run(plan, j); err != nil {
		return nil, err
	}
	return j.out.Get(), j.errs.Err()
}

// keyGenJob is one call of KeyGen768 or KeyGen1024 (an engine.Job). An
// element's out is nil until its key is made, and stays nil when it has
// an error.
type keyGenJob struct {
	e     *Engine
	p     *params
	seeds [][]byte
	out   *engine.Later[[][]byte]
	errs  *engine.Errors
}

// CPU implements engine.Job: crypto/mlkem on all cores.
func (j *keyGenJob) CPU(lo, hi int) {
	batch.Parallel(hi-lo, 16, func(a, b int) {
		out := j.out.Get()
		for i := lo + a; i < lo+b; i++ {
			out[i] = nil
			if err := j.p.seedError(j.seeds[i]); err != nil {
				j.errs.Set(i, err)
				continue
			}
			j.errs.Set(i, nil)
			out[i] = j.encapsulationKey(i)
		}
	})
}

// encapsulationKey is crypto/mlkem's encapsulation key of element i's
// seed (of SeedSize bytes).
func (j *keyGenJob) encapsulationKey(i int) []byte {
	dk, err := j.p.newDecapsulationKey(j.seeds[i])
	if err != nil {
		panic("mlkem: crypto/mlkem refused a seed of SeedSize bytes: " + err.Error())
	}
	return dk.encapsulationKey()
}

// check is the result check of element i.
func (j *keyGenJob) check(i int) bool {
	if j.p.seedError(j.seeds[i]) != nil {
		return j.errs.Get(i) != nil
	}
	return j.errs.Get(i) == nil && bytes.Equal(j.encapsulationKey(i), j.out.Get()[i])
}

// Device implements engine.Job: the seeds up (zeroed after the upload),
// one kernel (after the one that samples each key's Â, in the form
// MLKEM_MATRIX), the encapsulation keys back.
func (j *keyGenJob) Device(ch *engine.Chunk) error {
	n := ch.Hi - ch.Lo
	ekWords := j.p.ekSize / 4
	words, err := ch.Words(16*n + ekWords*n)
	if err != nil {
		return err
	}
	seeds, eks := words[:16*n], words[16*n:]
	end := ch.Step("pack")
	batch.Parallel(n, hostChunk, func(a, b int) {
		putRecords(wordBytes(seeds), SeedSize, a, b, func(k int) []byte {
			i := ch.Lo + k
			err := j.p.seedError(j.seeds[i])
			j.errs.Set(i, err)
			if err != nil {
				return nil
			}
			return j.seeds[i]
		})
	})
	end()
	kern, err := j.e.prog.Kernel(j.p.kernel + "_keygen")
	if err != nil {
		return err
	}
	var matrix *device.Kernel
	if j.e.matrix {
		if matrix, err = j.e.prog.Kernel(j.p.kernel + "_matrix"); err != nil {
			return err
		}
	}
	ch.ZeroAfterUpload(wordBytes(seeds))
	ch.Public(wordBytes(eks))
	err = ch.Run(func(cmds *device.Commands) error {
		dseeds, err := cmds.Upload(seeds, true)
		if err != nil {
			return err
		}
		deks, err := cmds.Buffer(4*len(eks), false)
		if err != nil {
			return err
		}
		args := []any{deks, dseeds}
		if matrix != nil {
			dmatrices, err := j.e.sampleMatrices(cmds, matrix, j.p, n, dseeds, SeedSize/4, 0, true)
			if err != nil {
				return err
			}
			args = append(args, dmatrices)
		}
		if err := cmds.Launch(kern, n, WorkGroup, append(args, j.e.table, uint32(n))...); err != nil {
			return err
		}
		return cmds.Read(deks, wordBytes(eks))
	})
	if err != nil {
		return err
	}
	end = ch.Step("unpack")
	j.unpack(ch.Lo, eks)
	end()
	defer ch.Step("check")()
	return engine.Check(ch.Sample(), j.check)
}

// unpack turns the device's encapsulation keys (ekSize/4 words for each
// element) into the results of the batch of the elements
// [lo, lo+len(eks)/(ekSize/4)): an element with an error has none; the
// keys are public, so a failed element's stays in the copy
// (unpackRecords).
func (j *keyGenJob) unpack(lo int, eks []uint32) {
	unpackRecords(wordBytes(eks), j.p.ekSize, lo, j.out.Get(), j.errs, false)
}
