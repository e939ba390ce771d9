package ecdh_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"log"
	"time"

	"github.com/gpucrypto/gpucrypto/batch"
	"github.com/gpucrypto/gpucrypto/ecdh"
)

var (
	alicePriv, _ = hex.DecodeString("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
	bobPriv, _   = hex.DecodeString("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb")
)

// An Engine computes whole batches on one device, or on the CPU. Auto
// picks the CPU engine when there is no GPU, so this example runs
// anywhere.
func ExampleEngine() {
	b, choice := ecdh.Auto() // an *ecdh.Engine on a GPU, or ecdh.CPUEngine()
	defer b.Close()
	log.Print(choice) // what Auto chose, and why
	pubs, err := b.PublicKeys(ecdh.X25519(), [][]byte{alicePriv, bobPriv})
	if err != nil {
		log.Fatal(err)
	}
	secrets, err := b.SharedSecrets(ecdh.X25519(),
		[][]byte{alicePriv, bobPriv},
		[][]byte{pubs[1], pubs[0]})
	if err != nil {
		log.Fatal(err) // a *batch.Error says which elements failed
	}
	fmt.Println(hex.EncodeToString(secrets[0]))
	fmt.Println(hex.EncodeToString(secrets[0]) == hex.EncodeToString(secrets[1]))
	// Output:
	// 4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742
	// true
}

// A Server batches single requests from many goroutines (one per TLS
// handshake, say) and spreads the batches over its engines.
func ExampleServer() {
	b, _ := ecdh.Auto()
	defer b.Close()
	s, err := ecdh.NewServer(batch.Options{MaxBatch: 4096, MaxDelay: time.Millisecond}, b)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pub, err := s.PublicKey(ctx, ecdh.X25519(), bobPriv)
	if err != nil {
		log.Fatal(err)
	}
	secret, err := s.SharedSecret(ctx, ecdh.X25519(), alicePriv, pub)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(hex.EncodeToString(secret))
	// Output: 4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742
}

// The CPU engine has the same API (circl, constant-time); a device
// Engine computes on it the calls it finds faster there, and the batches
// its device fails.
func ExampleCPUEngine() {
	cpu := ecdh.CPUEngine()
	_, err := cpu.SharedSecrets(ecdh.X25519(), [][]byte{alicePriv}, [][]byte{make([]byte, 32)})
	fmt.Println(err)
	// Output: 1 of 1 batch elements failed; element 0: ecdh: low-order peer public key: the shared secret is all zeros
}
