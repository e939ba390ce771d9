package ecdsa_test

import (
	"bytes"
	stdecdh "crypto/ecdh"
	"testing"
)

// FuzzECDH: any private key and peer bytes through the device Engine's
// ECDH and PublicKeys. Never panics; the answers and the elements that
// fail are crypto/ecdh's.
func FuzzECDH(f *testing.F) {
	key, _ := stdecdh.P256().NewPrivateKey(bytes.Repeat([]byte{7}, 32))
	peer, _ := stdecdh.P256().NewPrivateKey(bytes.Repeat([]byte{9}, 32))
	point := peer.PublicKey().Bytes()
	f.Add(key.Bytes(), point)
	f.Add(key.Bytes(), point[:33])
	f.Add(make([]byte, 32), point)
	f.Add(bytes.Repeat([]byte{0xff}, 32), point)
	f.Add(key.Bytes(), []byte{0})
	e := deviceEngine(f)
	f.Fuzz(func(t *testing.T, priv, peer []byte) {
		got, err := e.ECDH([][]byte{priv}, [][]byte{peer})
		want, wantErr := cryptoECDH(priv, peer)
		if (err != nil) != (wantErr != nil) || !bytes.Equal(got[0], want) {
			t.Fatalf("ECDH: %x, %v; crypto/ecdh: %x, %v", got[0], err, want, wantErr)
		}
		pubs, err := e.PublicKeys([][]byte{priv})
		k, wantErr := stdecdh.P256().NewPrivateKey(priv)
		if (err != nil) != (wantErr != nil) || (wantErr == nil && !bytes.Equal(pubs[0], k.PublicKey().Bytes())) {
			t.Fatalf("PublicKeys: %x, %v; crypto/ecdh: %v", pubs[0], err, wantErr)
		}
	})
}

// cryptoECDH is crypto/ecdh.P256()'s shared secret of priv and peer.
func cryptoECDH(priv, peer []byte) ([]byte, error) {
	k, err := stdecdh.P256().NewPrivateKey(priv)
	if err != nil {
		return nil, err
	}
	p, err := stdecdh.P256().NewPublicKey(peer)
	if err != nil {
		return nil, err
	}
	return k.ECDH(p)
}
