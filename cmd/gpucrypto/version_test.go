package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/gpucrypto/gpucrypto/device"
)

// TestVersion: "gpucrypto version" prints the version, the Go version,
// the platform and the backends built in; --json the same as JSON, and
// --json-out to a file.
func TestVersion(t *testing.T) {
	stdout, stderr, code := runCLI(t, "version")
	if code != 0 || stderr != "" {
		t.Fatalf("version: exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"gpucrypto ", runtime.Version(), runtime.GOOS + "/" + runtime.GOARCH, "backends: " + strings.Join(device.Backends(), ", "), "commit: "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("version: %q is not in\n%s", want, stdout)
		}
	}
	file := filepath.Join(t.TempDir(), "version.json")
	stdout, stderr, code = runCLI(t, "version", "--json", "--json-out", file)
	if code != 0 || stderr != "" {
		t.Fatalf("version --json: exit %d, stderr %q", code, stderr)
	}
	saved, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{stdout, string(saved)} {
		var v versionInfo
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("version --json: %v:\n%s", err, out)
		}
		if v.Version == "" || v.GoVersion != runtime.Version() || v.OS != runtime.GOOS || v.Arch != runtime.GOARCH || !slices.Equal(v.Backends, device.Backends()) {
			t.Errorf("version --json: %+v", v)
		}
	}
}

// newVersionInfo reads the module's version, the library's and the VCS
// settings from the build information; a build in a checkout is (devel).
func TestNewVersionInfo(t *testing.T) {
	bi := &debug.BuildInfo{
		GoVersion: "go1.26.0",
		Main:      debug.Module{Path: "github.com/gpucrypto/gpucrypto/cmd/gpucrypto", Version: "v0.1.0"},
		Deps:      []*debug.Module{{Path: libraryPath, Version: "v0.1.0"}, {Path: "golang.org/x/sys", Version: "v0.34.0"}},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.modified", Value: "true"},
			{Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}},
	}
	v := newVersionInfo(bi, true)
	if v.Version != "v0.1.0" || v.Library != "v0.1.0" || v.Commit != "0123456789abcdef" || v.Modified == nil || !*v.Modified || v.GoVersion != "go1.26.0" {
		t.Errorf("%+v", v)
	}
	if text := v.text(); !strings.Contains(text, "gpucrypto v0.1.0\n") || !strings.Contains(text, "0123456789abcdef (modified)") {
		t.Errorf("text:\n%s", text)
	}
	devel := newVersionInfo(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true)
	if devel.Version != "(devel)" || devel.Commit != "" || devel.Modified != nil {
		t.Errorf("(devel): %+v", devel)
	}
	if !strings.Contains(devel.text(), "commit:   unknown") {
		t.Errorf("text without VCS settings:\n%s", devel.text())
	}
	if none := newVersionInfo(nil, false); none.Version != "unknown" || none.GoVersion != runtime.Version() {
		t.Errorf("no build information: %+v", none)
	}
}
