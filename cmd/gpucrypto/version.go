package main

import (
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/gpucrypto/gpucrypto/device"
)

// libraryPath is the library's module path, whose version the binary was
// built with.
const libraryPath = "github.com/gpucrypto/gpucrypto"

// versionInfo is what "gpucrypto version" reports: which code the binary
// is, and what it was built for.
type versionInfo struct {
	// Version is the CLI module's version: the tag or pseudo-version
	// "go install ...@version" fetched, or "(devel)" for a build in a
	// checkout.
	Version string `json:"version"`
	// Library is the version of the library module it was built with
	// ("(devel)" in a checkout, where go.work points at the working tree).
	Library string `json:"library_version,omitempty"`
	// Commit and Modified are the VCS revision of a build in a checkout
	// and whether the working tree differed from it (absent from builds
	// of a module download, and with -buildvcs=false).
	Commit     string   `json:"commit,omitempty"`
	CommitTime string   `json:"commit_time,omitempty"`
	Modified   *bool    `json:"modified,omitempty"`
	GoVersion  string   `json:"go"`
	OS         string   `json:"goos"`
	Arch       string   `json:"goarch"`
	Backends   []string `json:"backends"` // the device drivers built in (cuda with -tags cuda)
}

// newVersionInfo reads the version from build information (ok false:
// none, as in a binary built without module support).
func newVersionInfo(bi *debug.BuildInfo, ok bool) versionInfo {
	v := versionInfo{Version: "unknown", GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, Backends: device.Backends()}
	if !ok || bi == nil {
		return v
	}
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	} else {
		v.Version = "(devel)"
	}
	if bi.GoVersion != "" {
		v.GoVersion = bi.GoVersion
	}
	for _, m := range bi.Deps {
		if m.Path == libraryPath {
			v.Library = m.Version
			if m.Replace != nil {
				v.Library += " => " + m.Replace.Path
				if m.Replace.Version != "" {
					v.Library += " " + m.Replace.Version
				}
			}
		}
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.CommitTime = s.Value
		case "vcs.modified":
			modified := s.Value == "true"
			v.Modified = &modified
		}
	}
	return v
}

func cmdVersion(args []string) error {
	fs := flag.NewFlagSet("version", flag.ExitOnError)
	asJSON, writeJSONDoc := jsonDocumentFlags(fs)
	parseFlags(fs, args)
	if fs.NArg() > 0 {
		return fmt.Errorf("version: unexpected arguments %q", fs.Args())
	}
	v := newVersionInfo(debug.ReadBuildInfo())
	if err := writeJSONDoc(v); err != nil || *asJSON {
		return err
	}
	fmt.Print(v.text())
	return nil
}

// text is the version as "gpucrypto version" prints it.
func (v versionInfo) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "gpucrypto %s\n", v.Version)
	if v.Library != "" {
		fmt.Fprintf(&b, "library:  %s %s\n", libraryPath, v.Library)
	}
	switch {
	case v.Commit != "":
		state := "clean"
		if v.Modified == nil {
			state = "modification state unknown"
		} else if *v.Modified {
			state = "modified"
		}
		fmt.Fprintf(&b, "commit:   %s (%s)", v.Commit, state)
		if v.CommitTime != "" {
			fmt.Fprintf(&b, " of %s", v.CommitTime)
		}
		b.WriteByte('\n')
	default:
		fmt.Fprintln(&b, "commit:   unknown (built from a module download, or with -buildvcs=false)")
	}
	fmt.Fprintf(&b, "go:       %s %s/%s\n", v.GoVersion, v.OS, v.Arch)
	fmt.Fprintf(&b, "backends: %s\n", strings.Join(v.Backends, ", "))
	return b.String()
}
