package main

import (
	"bytes"
	"cmp"
	"sync"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ecdh"
)

var _ = burninOps.add(ecdhBurninOp("x25519", ecdh.X25519(), 262144), ecdhBurninOp("x448", ecdh.X448(), 65536))

// ecdhBurninOp checks X25519 or X448 on the device. A case is a pair of
// random private keys a and b: the device computes the public keys A and B
// and the shared secrets X(a, B) and X(b, A), which must be equal (a check
// of every case that needs no CPU: a wrong public key or a wrong secret
// breaks the equality); a sample of the cases (--cpu-sample) is
// recomputed entirely on the CPU (ecdh.CPUEngine: circl) and compared, public
// keys included.
func ecdhBurninOp(name string, c ecdh.Curve, gpuBatch int) burninOp {
	return burninOp{name: name, algorithm: "ecdh", batchGPU: gpuBatch, batchCPU: 256, prepare: func(r *burninRun) (burninCheck, error) {
		e, err := burninEngineOf(r, ecdh.NewEngine)
		if err != nil {
			return nil, err
		}
		var pool sync.Pool // *ecdhBuffers of finished batches
		return func(b *burninBatch) {
			buf, _ := pool.Get().(*ecdhBuffers)
			if buf == nil || len(buf.privs) < 2*b.n {
				buf = newECDHBuffers(c, 2*b.n)
			}
			defer pool.Put(buf)
			checkECDH(b, e, c, buf)
		}, nil
	}}
}

// ecdhBuffers are the strings of a batch: kept from batch to batch so that
// the host does not allocate per case.
type ecdhBuffers struct {
	privs, pubs, peers, secrets [][]byte
}

func newECDHBuffers(c ecdh.Curve, n int) *ecdhBuffers {
	size := c.Size()
	slab := make([]byte, 3*n*size)
	buf := &ecdhBuffers{privs: make([][]byte, n), pubs: make([][]byte, n), peers: make([][]byte, n), secrets: make([][]byte, n)}
	for i := range n {
		buf.privs[i] = slab[(3*i)*size : (3*i+1)*size : (3*i+1)*size]
		buf.pubs[i] = slab[(3*i+1)*size : (3*i+2)*size : (3*i+2)*size]
		buf.secrets[i] = slab[(3*i+2)*size : (3*i+3)*size : (3*i+3)*size]
	}
	return buf
}

// checkECDH runs one batch: a_i is privs[i] and b_i privs[n+i], so one
// device call computes every public key and one every shared secret.
func checkECDH(b *burninBatch, e *ecdh.Engine, c ecdh.Curve, buf *ecdhBuffers) {
	n := b.n
	privs, pubs, peers, secrets := buf.privs[:2*n], buf.pubs[:2*n], buf.peers[:2*n], buf.secrets[:2*n]
	for i := range privs {
		for j := 0; j < len(privs[i]); j += 8 {
			v := b.rng.Uint64()
			for k := j; k < min(j+8, len(privs[i])); k++ {
				privs[i][k] = byte(v)
				v >>= 8
			}
		}
	}
	err := e.PublicKeysInto(c, privs, pubs)
	pubErrs, ok := elementErrors(err, 2*n)
	if !ok {
		b.failAll("PublicKeysInto", err)
		return
	}
	for i := range n {
		peers[i], peers[n+i] = pubs[n+i], pubs[i] // a_i with B_i, b_i with A_i
	}
	err = e.SharedSecretsInto(c, privs, peers, secrets)
	secretErrs, ok := elementErrors(err, 2*n)
	if !ok {
		b.failAll("SharedSecretsInto", err)
		return
	}
	b.tamper(secrets)
	record := func(i int, what string, err error) {
		want := map[string]string{}
		if cpu, cerr := ecdhReference(c, privs[i], privs[n+i]); cerr == nil {
			want = hexMap("A", cpu[0], "B", cpu[1], "X(a,B)", cpu[2], "X(b,A)", cpu[3])
		}
		b.fail(i, what, hexMap("a", privs[i], "b", privs[n+i]),
			hexMap("A", pubs[i], "B", pubs[n+i], "X(a,B)", secrets[i], "X(b,A)", secrets[n+i]), want, err)
	}
	var sample []int
	for i := range n {
		if err := cmp.Or(pubErrs[i], pubErrs[n+i], secretErrs[i], secretErrs[n+i]); err != nil {
			record(i, "the device failed the case", err)
		} else if !bytes.Equal(secrets[i], secrets[n+i]) {
			record(i, "X(a, B) and X(b, A) differ on the device", nil)
		} else if b.sampled(i) {
			sample = append(sample, i)
		}
	}
	batch.Parallel(len(sample), 1, func(lo, hi int) {
		for _, i := range sample[lo:hi] {
			cpu, err := ecdhReference(c, privs[i], privs[n+i])
			if err != nil || !bytes.Equal(cpu[0], pubs[i]) || !bytes.Equal(cpu[1], pubs[n+i]) ||
				!bytes.Equal(cpu[2], secrets[i]) || !bytes.Equal(cpu[3], secrets[n+i]) {
				record(i, "the device's keys or secrets differ from the CPU's", err)
			}
		}
	})
	b.stats.cpuChecked.Add(int64(len(sample)))
}

// ecdhReference is a case computed on the CPU: A, B, X(a, B) and X(b, A).
func ecdhReference(c ecdh.Curve, a, b []byte) ([4][]byte, error) {
	pair := [][]byte{a, b}
	pubs, err := ecdh.CPUEngine().PublicKeys(c, pair)
	if err != nil {
		return [4][]byte{}, err
	}
	secrets, err := ecdh.CPUEngine().SharedSecrets(c, pair, [][]byte{pubs[1], pubs[0]})
	if err != nil {
		return [4][]byte{}, err
	}
	return [4][]byte{pubs[0], pubs[1], secrets[0], secrets[1]}, nil
}
