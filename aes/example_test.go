package aes_test

import (
	"bytes"
	"context"
	stdaes "crypto/aes"
	"crypto/cipher"
	"fmt"
	"log"

	"github.com/gpucrypto/gpucrypto/aes"
	"github.com/gpucrypto/gpucrypto/batch"
)

// Sealing a batch of AES-128-GCM messages, each under its own key and
// nonce: on a GPU when there is one, else on the CPU with crypto/cipher;
// crypto/cipher opens what it sealed.
func ExampleEngine_Seal() {
	e, _ := aes.Auto() // the Choice says which engine and why
	defer e.Close()
	k1, _ := aes.NewKey(bytes.Repeat([]byte{1}, 16))
	k2, _ := aes.NewKey(bytes.Repeat([]byte{2}, 16))
	defer k1.Close()
	defer k2.Close()
	nonce := make([]byte, aes.NonceSize)
	sealed, err := e.Seal([]aes.Message{
		{Key: k1, Nonce: nonce, Data: []byte("first record")},
		{Key: k2, Nonce: nonce, AAD: []byte("header"), Data: []byte("second record")},
	})
	if err != nil {
		log.Fatal(err)
	}
	block, _ := stdaes.NewCipher(bytes.Repeat([]byte{2}, 16))
	gcm, _ := cipher.NewGCM(block)
	plain, err := gcm.Open(nil, nonce, sealed[1], []byte("header"))
	fmt.Printf("%d %d %q %v\n", len(sealed[0]), len(sealed[1]), plain, err)
	// Output: 28 29 "second record" <nil>
}

// A Server's cipher.AEAD over a Key: many goroutines seal records through
// it as they would through crypto/cipher's GCM; each record is computed
// with crypto/cipher at once (the device is for batches: Engine.Seal).
func ExampleServer_NewGCM() {
	e, _ := aes.Auto()
	defer e.Close()
	s, err := aes.NewServer(batch.Options{}, e)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	k, _ := aes.NewKey(bytes.Repeat([]byte{7}, 16))
	defer k.Close()
	aead, err := s.NewGCM(k)
	if err != nil {
		log.Fatal(err)
	}
	nonce := make([]byte, aead.NonceSize())
	sealed := aead.Seal(nil, nonce, []byte("hello"), nil)
	opened, err := s.Open(context.Background(), k, nil, nonce, sealed, nil)
	fmt.Printf("%q %v\n", opened, err)
	sealed[0] ^= 1
	_, err = aead.Open(nil, nonce, sealed, nil)
	fmt.Println(err)
	// Output:
	// "hello" <nil>
	// aes: message authentication failed
}

// A gateway that holds a frame of records seals them all through Go and
// collects them from one Done channel, with room for every Call in
// flight; each comes back with its own Result or Err.
func ExampleServer_Go() {
	s, err := aes.NewServer(batch.Options{}, aes.CPUEngine())
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	k, _ := aes.NewKey(bytes.Repeat([]byte{9}, 16))
	defer k.Close()
	records := []string{"GET /", "Host: example.test", ""}
	done := make(chan *aes.Call, len(records))
	for i, r := range records {
		nonce := make([]byte, aes.NonceSize)
		nonce[11] = byte(i) // a nonce per record, never reused under the key
		if err := s.Go(context.Background(), &aes.Call{Key: k, Nonce: nonce, Data: []byte(r), Done: done}); err != nil {
			log.Fatal(err)
		}
	}
	total := 0
	for range records {
		c := <-done
		if c.Err != nil {
			log.Fatal(c.Err)
		}
		total += len(c.Result)
	}
	fmt.Println(total) // the records' bytes and a 16-byte tag each
	// Output: 71
}
