package registry

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The registry and the repository agree: every package with an Engine is
// an algorithm of All, each algorithm's fuzz targets are exactly the
// Fuzz functions of its tests, and each has a self-test.
func TestRegistryMatchesTheTree(t *testing.T) {
	root := filepath.Join("..", "..")
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	engine := regexp.MustCompile(`(?m)^func NewEngine\(`)
	fuzz := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(f \*testing\.F\)`)
	var withEngines []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(root, e.Name(), "*.go"))
		var fuzzTargets []string
		hasEngine := false
		for _, f := range files {
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			if strings.HasSuffix(f, "_test.go") {
				for _, m := range fuzz.FindAllSubmatch(src, -1) {
					fuzzTargets = append(fuzzTargets, string(m[1]))
				}
			} else if engine.Match(src) {
				hasEngine = true
			}
		}
		if !hasEngine {
			continue
		}
		withEngines = append(withEngines, e.Name())
		a, ok := Named(e.Name())
		require.True(t, ok, "package %s has an Engine but is not in the registry", e.Name())
		require.ElementsMatch(t, fuzzTargets, a.Fuzz, "%s: the registry's fuzz targets and its tests' Fuzz functions", e.Name())
		require.NotEmpty(t, a.SelfTests, "%s: no self-test", e.Name())
		require.NotNil(t, a.Programs, "%s: no programs", e.Name())
	}
	var names []string
	for _, a := range All {
		names = append(names, a.Name)
	}
	require.ElementsMatch(t, withEngines, names, "the registry lists a package without an Engine")
}
