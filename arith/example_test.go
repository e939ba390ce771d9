package arith_test

import (
	"fmt"
	"log"
	"math/big"

	"github.com/gpucrypto/gpucrypto/arith"
	"github.com/gpucrypto/gpucrypto/device"
)

// ModExp runs a batch of exponentiations, each under its own modulus (or
// ModExpShared under one); an element with a bad modulus fails alone.
func ExampleEngine_ModExp() {
	e, choice := arith.Auto() // a GPU, or the CPU engine (choice says why)
	defer e.Close()
	log.Print(choice)
	m := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 521), big.NewInt(1)) // a 521-bit prime
	out, err := e.ModExp(
		[]*big.Int{big.NewInt(3), big.NewInt(5)},
		[]*big.Int{big.NewInt(1000), new(big.Int).Sub(m, big.NewInt(2))}, // 5^(m-2): the inverse of 5
		[]*big.Int{m, m})
	if err != nil {
		log.Fatal(err) // a *batch.Error names the failed elements
	}
	fmt.Println(out[0].Cmp(new(big.Int).Exp(big.NewInt(3), big.NewInt(1000), m)) == 0)
	fmt.Println(new(big.Int).Mod(new(big.Int).Mul(out[1], big.NewInt(5)), m))
}

// ModExpConfig chooses the Montgomery kernels: here 16 work-items per
// 4096-bit number (the default on GPUs from 3072 bits; one work-item per
// number is Threads: 1).
func ExampleEngine_ModExpConfig() {
	dev, err := device.Default()
	if err != nil {
		log.Fatal(err)
	}
	e, err := arith.NewEngine(dev)
	if err != nil {
		log.Fatal(err)
	}
	m := new(big.Int).Lsh(big.NewInt(1), 4095)
	m.Add(m, big.NewInt(0x1235)) // any odd 4096-bit modulus
	out, err := e.ModExpConfig(arith.MontConfig{Threads: 16},
		[]*big.Int{big.NewInt(2)}, []*big.Int{big.NewInt(65537)}, []*big.Int{m})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out[0].Cmp(new(big.Int).Exp(big.NewInt(2), big.NewInt(65537), m)) == 0)
}
