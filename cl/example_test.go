package cl_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/gpucrypto/gpucrypto/cl"
)

// Every OpenCL device of every platform, as the driver reports it. With
// no OpenCL library installed the error says so (cl.ErrNoRuntime) and
// ICDHint says what to install.
func ExampleDevices() {
	devices, err := cl.Devices()
	if errors.Is(err, cl.ErrNoRuntime) {
		fmt.Println(cl.ICDHint())
		return
	}
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range devices {
		fmt.Printf("%d: %s (%s), %d compute units, %d MiB\n", d.Index, d.Name, d.Platform, d.ComputeUnits, d.GlobalMem>>20)
	}
}

// OpenCL's status codes by name, as the errors of this package give them.
func ExampleStatusName() {
	fmt.Println(cl.StatusName(-5), cl.StatusName(-11))
	// Output: CL_OUT_OF_RESOURCES CL_BUILD_PROGRAM_FAILURE
}
