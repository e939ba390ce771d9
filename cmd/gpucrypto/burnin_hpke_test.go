//go:build go1.26

package main

func init() { tamperedOps = append(tamperedOps, "hpke") }
