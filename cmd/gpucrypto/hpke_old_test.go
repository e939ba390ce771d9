//go:build !go1.26

package main

// Before Go 1.26 there is no crypto/hpke to check and time HPKE against:
// burnin has no hpke operation and bench no hpke group.
func init() {
	withoutBurnin["hpke"] = "no burn-in operation before Go 1.26 (no crypto/hpke)"
	withoutBench["hpke"] = "no bench group before Go 1.26 (no crypto/hpke)"
}
