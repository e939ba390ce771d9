package device_test

import (
	"fmt"

	"github.com/gpucrypto/gpucrypto/device"
)

// The devices of every backend built in, and the one the packages' Auto
// functions compute on (or why they compute on the CPU engines).
func ExampleDevices() {
	devs, err := device.Devices()
	if err != nil {
		fmt.Println("no device:", err)
	}
	for _, d := range devs {
		fmt.Println(d)
	}
	fmt.Println(device.Choose())
}
