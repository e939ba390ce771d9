//go:build !linux

package main

import "errors"

// pinProcess restricts the process to the CPUs cpus: Linux only.
func pinProcess(cpus []int) error {
	return errors.New("pinning a process to CPUs needs Linux")
}
