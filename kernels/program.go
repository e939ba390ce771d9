package kernels

import (
	"io/fs"
	"maps"

	"github.com/gpucrypto/gpucrypto/device"
)

// Program is the device program of the kernel file name built with
// defines: its text is generated (Source) only when a device has not built
// it yet in this process.
func Program(name string, defines map[string]string) device.Source {
	defines = maps.Clone(defines)
	return device.Source{Name: name, Defines: defines, Text: func() (string, error) { return Source(name, defines) }}
}

// ProgramFrom is Program for a file of extra (SourceFrom): a program kept
// apart from the library's, built on its files.
func ProgramFrom(extra fs.FS, name string, defines map[string]string) device.Source {
	defines = maps.Clone(defines)
	return device.Source{Name: name, Defines: defines, Text: func() (string, error) { return SourceFrom(extra, name, defines) }}
}
