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
	// the keys' bytes are allocated by the batches (outputs), their slice
	// beside the first ones
	j := &keysJob{e: e, seeds: seeds, out: engine.LaterSlice[ed25519.PrivateKey](e.core, len(seeds)), errs: engine.NewErrors(len(seeds))}
	if err := e.core.Run(engine.Plan{Op: "Ed25519 public key", N: len(seeds), Chunk: pipelineChunk, Depth: hostBoundDepth, PackInTurn: true}, j); err != nil {
		return nil, err
	}
	return j.out.Get(), j.errs.Err()
}

// keysJob is one call of NewKeysFromSeeds (an engine.Job). An element's
// out is nil until its key is made, and stays nil when it has an error.
type keysJob struct {
	e     *Engine
	seeds [][]byte
	out   *engine.Later[[]ed25519.PrivateKey]
	errs  *engine.Errors
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
		out, slab := j.out.Get(), newOutputs(b-a, PrivateKeySize)
		for i := lo + a; i < lo+b; i++ {
			out[i] = nil
			if err := checkSeed(j.seeds[i]); err != nil {
				j.errs.Set(i, err)
				continue
			}
			j.errs.Set(i, nil)
			key := ed25519.NewKeyFromSeed(j.seeds[i])
			out[i] = slab.next()
			copy(out[i], key)
			clear(key)
		}
	})
}

// check is the result check of element i.
func (j *keysJob) check(i int) bool {
	if checkSeed(j.seeds[i]) != nil {
		return j.errs.Get(i) != nil
	}
	key := ed25519.NewKeyFromSeed(j.seeds[i])
	defer clear(key)
	return j.errs.Get(i) == nil && bytes.Equal(key, j.out.Get()[i])
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
		putRecords(device.Uint32Bytes(seeds), SeedSize, a, b, func(k int) []byte {
			i := ch.Lo + k
			err := checkSeed(j.seeds[i])
			j.errs.Set(i, err)
			if err != nil {
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
	ch.Public(device.Uint32Bytes(pubs))
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
	batch.Parallel(n, hostChunk, func(a, b int) { j.unpack(ch, device.Uint32Bytes(pubs), a, b) })
	end()
	defer ch.Step("check")()
	return engine.Check(ch.Sample(), j.check)
}

// unpack makes the keys of elements [a, b) of the batch ch, each its seed
// and the kernel's public key, in new outputs, one allocation for the
// range; an element with an error keeps a nil key.
func (j *keysJob) unpack(ch *engine.Chunk, pubs []byte, a, b int) {
	out, slab := j.out.Get(), newOutputs(b-a, PrivateKeySize)
	for k := a; k < b; k++ {
		i := ch.Lo + k
		if j.errs.Get(i) != nil {
			continue
		}
		key := slab.next()
		copy(key, j.seeds[i])
		copy(key[SeedSize:], pubs[k*PublicKeySize:(k+1)*PublicKeySize])
		out[i] = key
	}
}
