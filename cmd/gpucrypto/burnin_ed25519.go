package main

import (
	"bytes"
	stded25519 "crypto/ed25519"
	"fmt"
	"sync/atomic"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ed25519"
)

var _ = burninOps.add(ed25519BurninOp("ed25519", 131072))

// ed25519TamperEvery: the first signature of each batch and about one in
// this many others are verified on the device a second time with one bit
// changed, and must be refused.
const ed25519TamperEvery = 8

// ed25519LongEvery: about one message in this many is longer than
// ed25519.DeviceMessageMax, which the engine signs (and hashes for
// verification) on the host.
const ed25519LongEvery = 1000

// ed25519BurninOp checks Ed25519 on the device. A case is a random seed
// and a random message (0 to 256 bytes; about one in ed25519LongEvery
// longer than ed25519.DeviceMessageMax): the device computes the private
// key (NewKeysFromSeeds), signs the message and verifies the signature,
// which must be valid (a check of every case that needs no CPU: a wrong
// public key or a wrong signature fails it); the first case of each batch
// and about one in ed25519TamperEvery are verified again with one bit of
// the signature changed, which must be refused. A sample (--cpu-sample) is
// recomputed entirely on the CPU with crypto/ed25519 (NewKeyFromSeed,
// Sign, Verify) and compared byte for byte, the verdicts included.
func ed25519BurninOp(name string, gpuBatch int) burninOp {
	return burninOp{name: name, algorithm: "ed25519", batchGPU: gpuBatch, batchCPU: 256, prepare: func(r *burninRun) (burninCheck, error) {
		e, err := burninEngineOf(r, ed25519.NewEngine)
		if err != nil {
			return nil, err
		}
		return func(b *burninBatch) { checkEd25519(b, e) }, nil
	}}
}

// ed25519Length is a random message length: 0 to 256 bytes, about one in
// ed25519LongEvery up to twice ed25519.DeviceMessageMax (beyond it).
func (b *burninBatch) ed25519Length() int {
	if b.rng.IntN(ed25519LongEvery) == 0 {
		return ed25519.DeviceMessageMax + 1 + b.rng.IntN(ed25519.DeviceMessageMax)
	}
	return b.rng.IntN(257)
}

func checkEd25519(b *burninBatch, e *ed25519.Engine) {
	n := b.n
	seeds := make([][]byte, n)
	msgs := make([][]byte, n)
	lengths := make([]int, n)
	total := 0
	for i := range n {
		lengths[i] = b.ed25519Length()
		total += lengths[i]
	}
	seedSlab, msgSlab := b.bytes(n*ed25519.SeedSize), b.bytes(total)
	for i, off := 0, 0; i < n; i++ {
		seeds[i] = seedSlab[i*ed25519.SeedSize : (i+1)*ed25519.SeedSize : (i+1)*ed25519.SeedSize]
		msgs[i] = msgSlab[off : off+lengths[i] : off+lengths[i]]
		off += lengths[i]
	}
	keys, err := e.NewKeysFromSeeds(seeds)
	keyErrs, ok := elementErrors(err, n)
	if !ok {
		b.failAll("NewKeysFromSeeds", err)
		return
	}
	sigs, err := e.Sign(keys, msgs, nil)
	signErrs, ok := elementErrors(err, n)
	if !ok {
		b.failAll("Sign", err)
		return
	}
	b.tamper(sigs)
	// the device's verification: every signature, then a corrupted copy of
	// some (tampered[i]: the index of case i's copy in the call, or -1)
	pubs := make([]stded25519.PublicKey, n, n+n/ed25519TamperEvery+8)
	vmsgs := append(make([][]byte, 0, cap(pubs)), msgs...)
	vsigs := make([][]byte, n, cap(pubs))
	tampered := make([]int, n)
	for i := range n {
		tampered[i] = -1
		if len(keys[i]) == ed25519.PrivateKeySize {
			pubs[i] = stded25519.PublicKey(keys[i][ed25519.SeedSize:])
		} else {
			pubs[i] = make(stded25519.PublicKey, ed25519.PublicKeySize) // verified too, for the shape
		}
		vsigs[i] = sigs[i]
		if vsigs[i] == nil {
			vsigs[i] = make([]byte, ed25519.SignatureSize)
		}
		if i == 0 || b.rng.IntN(ed25519TamperEvery) == 0 {
			s := bytes.Clone(vsigs[i])
			s[b.rng.IntN(len(s))] ^= 1 << b.rng.IntN(8)
			tampered[i] = len(vsigs)
			pubs, vmsgs, vsigs = append(pubs, pubs[i]), append(vmsgs, msgs[i]), append(vsigs, s)
		}
	}
	verdicts, err := e.Verify(pubs, vmsgs, vsigs, nil)
	verifyErrs, ok := elementErrors(err, len(pubs))
	if !ok {
		b.failAll("Verify", err)
		return
	}
	sample := make([]bool, n)
	for i := range n {
		sample[i] = b.sampled(i)
	}
	var cpuChecked atomic.Int64
	batch.Parallel(n, 64, func(lo, hi int) {
		checked := int64(0)
		for i := lo; i < hi; i++ {
			t := tampered[i]
			what, derr := "the device failed the public key", keyErrs[i]
			if derr == nil {
				what, derr = signatureVerdict(signErrs[i], verifyErrs, verdicts, i, t)
			}
			if what == "" && sample[i] {
				checked++
				key := stded25519.NewKeyFromSeed(seeds[i])
				switch {
				case !bytes.Equal(key, keys[i]):
					what = "the device's public key differs from the CPU's"
				case !bytes.Equal(stded25519.Sign(key, msgs[i]), sigs[i]):
					what = "the device's signature differs from the CPU's"
				case !stded25519.Verify(pubs[i], msgs[i], sigs[i]):
					what = "the device's signature does not verify on the CPU"
				case t >= 0 && stded25519.Verify(pubs[i], msgs[i], vsigs[t]):
					what = "the CPU accepts the corrupted signature that the device refused"
				}
			}
			if what != "" {
				b.fail(i, what, ed25519Input(seeds[i], msgs[i], vsigs, t),
					ed25519Output(keys[i], sigs[i], verdicts, i, t), ed25519Reference(seeds[i], msgs[i], vsigs, t), derr)
			}
		}
		cpuChecked.Add(checked)
	})
	b.stats.cpuChecked.Add(cpuChecked.Load())
}

// ed25519Input is a case's inputs for the failures file: the seed, the
// message and the corrupted signature verified, if any.
func ed25519Input(seed, msg []byte, vsigs [][]byte, t int) map[string]string {
	if t < 0 {
		return hexMap("seed", seed, "message", msg)
	}
	return hexMap("seed", seed, "message", msg, "corrupted signature", vsigs[t])
}

// ed25519Output is the device's results of case i.
func ed25519Output(key stded25519.PrivateKey, sig []byte, verdicts []bool, i, t int) map[string]string {
	m := hexMap("public key", publicHalf(key), "signature", sig, "valid", verdicts[i])
	if t >= 0 {
		m["corrupted valid"] = fmt.Sprint(verdicts[t])
	}
	return m
}

// ed25519Reference is crypto/ed25519's results of a case, as
// ed25519Output.
func ed25519Reference(seed, msg []byte, vsigs [][]byte, t int) map[string]string {
	key := stded25519.NewKeyFromSeed(seed)
	sig := stded25519.Sign(key, msg)
	pub := key.Public().(stded25519.PublicKey)
	m := hexMap("public key", []byte(pub), "signature", sig, "valid", stded25519.Verify(pub, msg, sig))
	if t >= 0 {
		m["corrupted valid"] = fmt.Sprint(stded25519.Verify(pub, msg, vsigs[t]))
	}
	return m
}

// publicHalf is a private key's public key (nil for a malformed key).
func publicHalf(key stded25519.PrivateKey) []byte {
	if len(key) != ed25519.PrivateKeySize {
		return nil
	}
	return key[ed25519.SeedSize:]
}
