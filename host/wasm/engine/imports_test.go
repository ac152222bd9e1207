package engine

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// runtimePaths are the module paths of the WebAssembly runtimes the host
// has run on: only this package may import them.
var runtimePaths = []string{"github.com/tetratelabs/wazero", "github.com/samyfodil/wazy"}

// TestOnlyTheSeamImportsTheRuntime walks the repository's Go files: any
// other importer of the runtime would make going back or forward more
// than this package's change.
func TestOnlyTheSeamImportsTheRuntime(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	seam, _ := filepath.Abs(".")
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == seam || strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		for _, imp := range importsOf(t, path) {
			for _, rt := range runtimePaths {
				if imp == rt || strings.HasPrefix(imp, rt+"/") {
					rel, _ := filepath.Rel(root, path)
					t.Errorf("%s imports %s: name it through host/wasm/engine, the one package that imports the runtime", rel, imp)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func importsOf(t *testing.T, path string) []string {
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.ImportsOnly)
	if err != nil {
		return nil // not Go this build reads (a fixture); the compiler judges it
	}
	var out []string
	for _, s := range f.Imports {
		p, _ := strconv.Unquote(s.Path.Value)
		out = append(out, p)
	}
	return out
}
