// Package readmetest checks the repository's README.md: its Go snippets
// are complete programs that compile against the library of this working
// tree and check their errors, so that the README cannot drift from the
// API it shows. The package has no code of its own.
//
// TestSnippetsBuild writes every ```go fenced block of README.md as the
// main.go of a directory of its own in a temporary module, which requires
// the library at a placeholder version replaced by this working tree and
// the library's own requirements at the library's versions (its go.mod,
// renamed, and its go.sum), and runs one "go vet ./..." there with the go
// command on PATH, offline: GOPROXY=off, GOFLAGS=-mod=readonly,
// GOWORK=off. A snippet that does not compile fails the test, with the
// compiler's messages pointed at README.md's lines.
//
// TestSnippetsArePrograms checks that each snippet is a gofmt-formatted
// package main and that each algorithm's package (quickStarts) has one
// that imports it.
//
// TestReadmeIsShort keeps README.md within maxLines.
//
// TestSnippetsCheckErrors is a heuristic, not a type check: it parses each
// snippet and refuses a blank identifier that receives a call's last
// result, or its only one (x, _ := f(); _ = f(); var _ = f()), the result
// that is an error by Go's convention. It cannot see a call whose results
// are all dropped (a bare f(), a deferred Close), nor an error that is not
// the last result; the snippets leave out only what cannot fail
// (crypto/rand.Read) and deferred Close calls of a program that ends.
package readmetest

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// libraryModule is the module path of the library whose README this is.
const libraryModule = "github.com/gpucrypto/gpucrypto"

// quickStarts are the packages that must each have a snippet of their own
// (one that imports them).
var quickStarts = []string{"rsa", "ecdh", "ed25519", "ecdsa", "aes", "mlkem"}

// snippet is one ```go fenced block of README.md.
type snippet struct {
	line int    // README.md's line of the block's first line of code
	src  []byte // the block's code, newline-terminated
}

// repositoryRoot is the directory of the library's go.mod: two levels up
// from this package.
func repositoryRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(mod, []byte("module "+libraryModule+"\n")) {
		t.Fatalf("%s/go.mod is not the module %s", root, libraryModule)
	}
	return root
}

// readme returns README.md's text.
func readme(t *testing.T) string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(repositoryRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(text)
}

// snippets extracts the ```go fenced blocks of text, failing the test on
// a block that is not closed.
func snippets(t *testing.T, text string) []snippet {
	t.Helper()
	var out []snippet
	var cur *snippet
	for i, line := range strings.Split(text, "\n") {
		switch {
		case cur == nil && strings.TrimSpace(line) == "```go":
			cur = &snippet{line: i + 2}
		case cur != nil && strings.TrimSpace(line) == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.src = append(cur.src, line+"\n"...)
		}
	}
	if cur != nil {
		t.Fatalf("README.md:%d: a ```go block that is not closed", cur.line-1)
	}
	if len(out) == 0 {
		t.Fatal("README.md has no ```go block")
	}
	return out
}

// parse parses s as a Go file.
func parse(s snippet) (*token.FileSet, *ast.File, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "main.go", s.src, parser.ParseComments)
	return fset, f, err
}

// TestSnippetsArePrograms checks that every snippet is a gofmt-formatted
// package main, and that each package of quickStarts has one.
func TestSnippetsArePrograms(t *testing.T) {
	imported := map[string]bool{}
	for _, s := range snippets(t, readme(t)) {
		_, f, err := parse(s)
		if err != nil {
			t.Errorf("README.md:%d: the snippet does not parse: %v", s.line, err)
			continue
		}
		if f.Name.Name != "main" {
			t.Errorf("README.md:%d: the snippet is package %s, not a program (package main)", s.line, f.Name.Name)
		}
		if formatted, err := format.Source(s.src); err != nil || !bytes.Equal(formatted, s.src) {
			t.Errorf("README.md:%d: the snippet is not gofmt-formatted", s.line)
		}
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err == nil {
				imported[path] = true
			}
		}
	}
	for _, pkg := range quickStarts {
		if !imported[libraryModule+"/"+pkg] {
			t.Errorf("no README snippet imports %s/%s: every package has a quick start", libraryModule, pkg)
		}
	}
}

// TestSnippetsCheckErrors refuses a blank identifier that receives a
// call's last or only result (see the package doc for what this
// heuristic sees and what it does not).
func TestSnippetsCheckErrors(t *testing.T) {
	for _, s := range snippets(t, readme(t)) {
		fset, f, err := parse(s)
		if err != nil {
			t.Errorf("README.md:%d: the snippet does not parse: %v", s.line, err)
			continue
		}
		for _, pos := range discardedResults(f) {
			t.Errorf("README.md:%d: a blank identifier takes a call's last result (an error, by convention): every README snippet checks its errors", s.line+fset.Position(pos).Line-1)
		}
	}
}

// discardedResults returns the positions in f of blank identifiers that
// receive the last (or only) result of a call.
func discardedResults(f *ast.File) []token.Pos {
	var out []token.Pos
	check := func(lhs []*ast.Ident, rhs []ast.Expr) {
		switch {
		case len(rhs) == 1 && len(lhs) > 0:
			// one call, all its results: the last is the error
			if isCall(rhs[0]) && isBlank(lhs[len(lhs)-1]) {
				out = append(out, lhs[len(lhs)-1].Pos())
			}
		case len(rhs) == len(lhs):
			// one value each: a call's only result
			for i := range lhs {
				if isCall(rhs[i]) && isBlank(lhs[i]) {
					out = append(out, lhs[i].Pos())
				}
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			var lhs []*ast.Ident
			for _, e := range n.Lhs {
				id, _ := e.(*ast.Ident)
				lhs = append(lhs, id)
			}
			check(lhs, n.Rhs)
		case *ast.ValueSpec:
			check(n.Names, n.Values)
		}
		return true
	})
	return out
}

func isBlank(id *ast.Ident) bool { return id != nil && id.Name == "_" }

func isCall(e ast.Expr) bool {
	_, ok := ast.Unparen(e).(*ast.CallExpr)
	return ok
}

func TestDiscardedResults(t *testing.T) {
	for src, want := range map[string]int{
		"x, err := f()":                   0,
		"_, err := rand.Read(b)":          0,
		"for _, v := range s {}":          0,
		"v, _ := m[k]":                    0,
		"v, _ := x.(T)":                   0,
		"x, _ := f()":                     1,
		"_ = f()":                         1,
		"a, _ = f()":                      1,
		"a, _ := g(), h()":                1,
		"e, _ := gpursa.Auto()":           1,
		"_, _ = f()":                      1,
		"var _ = f()":                     1,
		"var x, _ = f()":                  1,
		"defer e.Close()":                 0,
		"if _, err := f(); err != nil {}": 0,
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package main\nfunc main() {\n"+src+"\n}\n", 0)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got := len(discardedResults(f)); got != want {
			t.Errorf("%s: %d discarded results found, want %d", src, got, want)
		}
	}
}

// TestSnippetsBuild compiles every snippet against this working tree (see
// the package doc).
func TestSnippetsBuild(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command on PATH (%v): the README's snippets are not compiled", err)
	}
	root := repositoryRoot(t)
	list := snippets(t, readme(t))
	dir := t.TempDir()
	if err := writeModule(dir, root); err != nil {
		t.Fatal(err)
	}
	for i, s := range list {
		sub := filepath.Join(dir, snippetDir(i))
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, "main.go"), s.src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goTool, "vet", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GOWORK=off",
		"GOFLAGS=-mod=readonly",
		"GOPROXY=off",
		"GOTOOLCHAIN=local",
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("go vet: %v", err)
		}
		t.Fatalf("the README's snippets do not build (go vet ./... in a module of them, against %s):\n%s", root, readmePositions(string(out), list))
	}
}

// snippetDir is the directory of snippet i in the temporary module.
func snippetDir(i int) string { return fmt.Sprintf("snippet%02d", i) }

// writeModule writes the go.mod and go.sum of the snippets' module into
// dir: the library's go.mod renamed (its go version and requirements, so
// that the library's go.sum covers every module the snippets build
// with), the library required at a placeholder version, and that version
// replaced by the working tree at root.
func writeModule(dir, root string) error {
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		return err
	}
	text := "module readmesnippets" + strings.TrimPrefix(string(mod), "module "+libraryModule) +
		"\nrequire " + libraryModule + " v0.0.0\n" +
		"\nreplace " + libraryModule + " => " + strconv.Quote(root) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(text), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644)
}

// readmePositions rewrites the positions snippetNN/main.go:L in the go
// command's output as README.md's lines.
func readmePositions(out string, list []snippet) string {
	re := regexp.MustCompile(`(?:\./)?snippet(\d+)[/\\]main\.go:(\d+)`)
	return re.ReplaceAllStringFunc(out, func(m string) string {
		sub := re.FindStringSubmatch(m)
		i, err1 := strconv.Atoi(sub[1])
		line, err2 := strconv.Atoi(sub[2])
		if err1 != nil || err2 != nil || i >= len(list) {
			return m
		}
		return fmt.Sprintf("README.md:%d", list[i].line+line-1)
	})
}

// maxLines is the README's length at most (issue #44: a reference, its
// history in docs/journal).
const maxLines = 300

func TestReadmeIsShort(t *testing.T) {
	lines := strings.Count(readme(t), "\n")
	if lines > maxLines {
		t.Fatalf("README.md has %d lines, more than %d: move detail to the package docs or docs/", lines, maxLines)
	}
}
