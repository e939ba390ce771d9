package ecdh

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/gpucrypto/gpucrypto/testvectors"
)

// SelfTest checks b against the RFC 7748 vectors of both curves: §5.2 single
// vectors, the 1 and 1,000 iteration results, and the §6 key agreements.
func SelfTest(b Backend) error {
	switch e := b.(type) {
	case nil:
		return errors.New("ecdh: SelfTest of a nil backend")
	case *Engine:
		if e == nil {
			return errors.New("ecdh: SelfTest of a nil engine")
		}
		return e.core.SelfTest(func() error { return selfTest(e) })
	}
	return selfTest(b)
}

// selfTest is SelfTest's test.
func selfTest(b Backend) error {
	v25519, v448, err := testvectors.RFC7748()
	if err != nil {
		return err
	}
	for _, c := range Curves() {
		v := v25519
		dh := v.DH61
		if c == X448() {
			v, dh = v448, v448.DH62
		}
		var ks, us, want [][]byte
		for _, s := range v.Single {
			ks, us, want = append(ks, mustHex(s.Scalar)), append(us, mustHex(s.U)), append(want, mustHex(s.Output))
		}
		ks = append(ks, mustHex(dh.AlicePrivate), mustHex(dh.BobPrivate))
		us = append(us, mustHex(dh.BobPublic), mustHex(dh.AlicePublic))
		want = append(want, mustHex(dh.Shared), mustHex(dh.Shared))
		got, err := b.SharedSecrets(c, ks, us)
		if err != nil {
			return fmt.Errorf("%s: %w", c, err)
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				return fmt.Errorf("%s: known-answer vector %d wrong", c, i)
			}
		}
		pubs, err := b.PublicKeys(c, [][]byte{mustHex(dh.AlicePrivate), mustHex(dh.BobPrivate)})
		if err != nil {
			return fmt.Errorf("%s: %w", c, err)
		}
		if !bytes.Equal(pubs[0], mustHex(dh.AlicePublic)) || !bytes.Equal(pubs[1], mustHex(dh.BobPublic)) {
			return fmt.Errorf("%s: public key vectors wrong", c)
		}
		k := mustHex(v.Iterated.Initial)
		u := bytes.Clone(k)
		for i := 1; i <= 1000; i++ {
			r, err := b.SharedSecrets(c, [][]byte{k}, [][]byte{u})
			if err != nil {
				return fmt.Errorf("%s iteration %d: %w", c, i, err)
			}
			k, u = r[0], k
			for _, res := range v.Iterated.Results {
				if res.Iterations == i && hex.EncodeToString(k) != res.K {
					return fmt.Errorf("%s: iterated vector wrong after %d iterations", c, i)
				}
			}
		}
	}
	return nil
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic("ecdh: bad embedded vector: " + err.Error())
	}
	return b
}
