package device

import "time"

// A driver is one backend (OpenCL, CUDA): it finds devices and gives each
// the operations below. Drivers live in files of their own (opencl.go;
// cuda.go, built with the tag cuda); everything else in this package is
// the same for all of them.
type driver interface {
	name() string
	devices() ([]driverDevice, error)
}

type driverDevice interface {
	info() Info
	// identity names the device, driver and compiler versions for the
	// disk cache's keys: a binary is reused only where all of them match.
	identity() string
	// compile builds the source with the -D options and flags; the error
	// of a failed build carries the compiler's log. It returns the
	// program and its binary (for the disk cache; nil if there is none).
	compile(src string, options []string) (driverProgram, []byte, error)
	// load makes a program from a binary that compile returned.
	load(binary []byte, options []string) (driverProgram, error)
	newBuffer(size int) (driverBuffer, error)
	defaultQueue() (driverQueue, error)
	newQueue() (driverQueue, error)
	// hostAlloc returns size bytes of host memory that copies reach
	// fastest (pinned, where the driver has it) and the function that
	// frees it.
	hostAlloc(size int) ([]byte, func() error, error)
	// setSmallCache gives the driver a place to keep probe answers across
	// processes (the device layer's disk cache).
	setSmallCache(c smallCache)
}

// smallCache keeps short text answers (feature probes) across processes.
type smallCache interface {
	loadSmall(key string) (string, bool)
	storeSmall(key, value string)
}

type driverProgram interface {
	kernel(name string) (driverKernel, error)
	log() string
	release() error
}

type driverKernel interface {
	info() (KernelInfo, error)
}

type driverBuffer interface {
	size() int
	release() error
}

// kernelArg is one argument of a launch: a buffer, local memory, or a
// scalar of 4 or 8 bytes.
type kernelArg struct {
	buffer driverBuffer
	local  int // bytes of local (shared) memory, when > 0
	scalar [8]byte
	width  int // bytes of scalar: 4 or 8
}

type driverQueue interface {
	launch(k driverKernel, global, local int, args []kernelArg) (driverEvent, error)
	// write and read are asynchronous: host must stay unchanged (write) or
	// unread (read) until the event completes.
	write(b driverBuffer, off int, host []byte) (driverEvent, error)
	read(b driverBuffer, off int, host []byte) (driverEvent, error)
	// fill sets n bytes from off to repetitions of a 1-, 2- or 4-byte
	// pattern.
	fill(b driverBuffer, pattern []byte, off, n int) (driverEvent, error)
	waitFor(events []driverEvent) error
	finish() error
	release() error
}

type driverEvent interface {
	wait() error
	duration() (time.Duration, error)
	release() error
}

// pollingEvent is a driverEvent that says without waiting whether its
// command has completed (CUDA's cuEventQuery), so that a short wait can
// poll instead of sleeping (Commands.wait).
type pollingEvent interface {
	driverEvent
	query() (bool, error)
}
