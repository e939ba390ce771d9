package ed25519

import (
	"bytes"
	"crypto/ed25519"
	"fmt"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/device"
	"github.com/gpucrypto/gpucrypto/internal/engine"
)

// NewKeysFromSeeds returns the private key of each seed, as
// crypto/ed25519's NewKeyFromSeed: the seed followed by its public key
// [s]B, s the clamped first half of SHA-512(seed). A seed not of SeedSize
// bytes has ErrKeyLength in the returned *batch.Error and a nil key.
func (e *Engine) NewKeysFromSeeds(seeds [][]byte) ([]ed25519.PrivateKey, error) {
	end := e.core.Step("outputs")
	j := &keysJob{e: e, seeds: seeds, out: outputStrings(len(seeds), PrivateKeySize), errs: make([]error, len(seeds))}
	end()
	if err := e.core.Run(engine.Plan{Op: "Ed25519 public key", N: len(seeds), Chunk: pipelineChunk, Depth: pipelineDepth}, j); err != nil {
		return nil, err
	}
	defer e.core.Step("collect")()
	keys := make([]ed25519.PrivateKey, len(seeds))
	for i := range keys {
		if j.errs[i] == nil {
			keys[i] = j.out[i]
		}
	}
	return keys, batch.Collect(j.errs)
}

// keysJob is one call of NewKeysFromSeeds (an engine.Job).
type keysJob struct {
	e     *Engine
	seeds [][]byte
	out   [][]byte
	errs  []error
}

func checkSeed(seed []byte) error {
	if len(seed) != SeedSize {
		return fmt.Errorf("%w: a seed of %d bytes", ErrKeyLength, len(seed))
	}
	return nil
}

// CPU implements engine.Job: crypto/ed25519 on all cores.
func (j *keysJob) CPU(lo, hi int) {
	batch.Parallel(hi-lo, 64, func(a, b int) {
		for i := lo + a; i < lo+b; i++ {
			if j.errs[i] = checkSeed(j.seeds[i]); j.errs[i] != nil {
				clear(j.out[i])
				continue
			}
			key := ed25519.NewKeyFromSeed(j.seeds[i])
			copy(j.out[i], key)
			clear(key)
		}
	})
}

// check is the result check of element i.
func (j *keysJob) check(i int) bool {
	if checkSeed(j.seeds[i]) != nil {
		return j.errs[i] != nil
	}
	key := ed25519.NewKeyFromSeed(j.seeds[i])
	defer clear(key)
	return j.errs[i] == nil && bytes.Equal(key, j.out[i])
}

// Device implements engine.Job: the seeds up (zeroed after the upload),
// one kernel, the public keys back.
func (j *keysJob) Device(ch *engine.Chunk) error {
	n := ch.Hi - ch.Lo
	words, err := ch.Words(16 * n)
	if err != nil {
		return err
	}
	seeds, pubs := words[:8*n], words[8*n:]
	end := ch.Step("pack")
	batch.Parallel(n, hostChunk, func(a, b int) {
		putValues(seeds, n, a, b, func(k int) []byte {
			i := ch.Lo + k
			if j.errs[i] = checkSeed(j.seeds[i]); j.errs[i] != nil {
				clear(j.out[i])
				return nil
			}
			return j.seeds[i]
		})
	})
	end()
	kern, err := j.e.prog.Kernel("ed25519_public")
	if err != nil {
		return err
	}
	ch.ZeroAfterUpload(device.Uint32Bytes(seeds))
	err = ch.Run(func(cmds *device.Commands) error {
		dseeds, err := cmds.Upload(seeds, true)
		if err != nil {
			return err
		}
		dpubs, err := cmds.Buffer(4*8*n, false)
		if err != nil {
			return err
		}
		if err := cmds.Launch(kern, n, WorkGroup, dpubs, dseeds, j.e.table, uint32(n)); err != nil {
			return err
		}
		return cmds.Read(dpubs, device.Uint32Bytes(pubs))
	})
	if err != nil {
		return err
	}
	end = ch.Step("unpack")
	batch.Parallel(n, hostChunk, func(a, b int) {
		getValues(pubs, n, a, b, func(k int) []byte {
			if i := ch.Lo + k; j.errs[i] == nil {
				copy(j.out[i], j.seeds[i])
				return j.out[i][SeedSize:]
			}
			return nil
		})
	})
	end()
	defer ch.Step("check")()
	return engine.Check(ch.Sample(), j.check)
}
