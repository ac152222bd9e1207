package wasm

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A plugin.wasm that is not WebAssembly is named for what it is, with the
// build line for that case, before the compiler's "invalid magic number".
func TestNotWebAssemblySaysWhatTheFileIs(t *testing.T) {
	goELF := append([]byte("\x7fELF\x02\x01\x01"), []byte("....\xff Go buildinf:....")...)
	tests := []struct {
		name  string
		bytes []byte
		want  []string
	}{
		{"empty", nil, []string{"it is empty", goBuildLine, cBuildLine}},
		{"a Go program for Linux", goELF, []string{"a Go program built for Linux (ELF)", "GOOS and GOARCH were not set", goBuildLine}},
		{"a C program for Linux", []byte("\x7fELF\x02\x01\x01\x00"), []string{"a native program for Linux (ELF)", cBuildLine}},
		{"a Mach-O program", []byte{0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1}, []string{"macOS (Mach-O)"}},
		{"a PE program", []byte("MZ\x90\x00\x03"), []string{"Windows (PE)"}},
		{"a script", []byte("#!/bin/sh\necho hi\n"), []string{"a script", "run.command"}},
		{"WebAssembly text", []byte("  (module (func))"), []string{"WebAssembly text", "wat2wasm"}},
		{"text", []byte("<html>not found</html>"), []string{`it is text (it starts with "<html>not found<"`}},
		{"bytes", []byte{1, 2, 3, 0, 5}, []string{"it starts with the bytes 01 02 03 00 05"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkWebAssembly(tt.bytes)
			if err == nil {
				t.Fatal("no refusal")
			}
			if !strings.HasPrefix(err.Error(), "plugin.wasm is not a WebAssembly file: ") {
				t.Errorf("refusal %q does not say it is not WebAssembly", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("refusal %q lacks %q", err, w)
				}
			}
		})
	}
	if err := checkWebAssembly(noEntry); err != nil {
		t.Errorf("a module is refused: %v", err)
	}
}

// A module exporting the kit's escouade-turn with Go's _start and no
// _initialize (a go build without -buildmode=c-shared) is refused at
// compile, naming the flag, instead of crashing at every start.
func TestAGoReactorBuiltWithoutCSharedIsRefusedNamingTheFlag(t *testing.T) {
	module := encode(nil, []wasmFunc{{export: "escouade-turn"}, {export: "_start"}}, 1)
	tr := newTransport(t, Options{})
	err := tr.Precompile(context.Background(), pluginDir(t, module, nil), nil)
	if err == nil || !strings.Contains(err.Error(), "-buildmode=c-shared") || !strings.Contains(err.Error(), goBuildLine) {
		t.Fatalf("Precompile = %v, want a refusal naming -buildmode=c-shared and the build line", err)
	}
	withInit := encode(nil, []wasmFunc{{export: "escouade-turn"}, {export: "_start"}, {export: "_initialize"}}, 1)
	if err := tr.Precompile(context.Background(), pluginDir(t, withInit, nil), nil); err != nil {
		t.Errorf("a reactor with _initialize is refused: %v", err)
	}
}

// The line after a compile that lasted says whether the code was read
// back from the cache (no new entry in it) or compiled and kept.
func TestTheProgressLineSaysWhetherTheCacheWasUsed(t *testing.T) {
	tr := newTransport(t, Options{CacheDir: t.TempDir()})
	src := source{name: ModuleFile, bytes: make([]byte, 3<<20)}
	before := tr.cacheEntries()
	if got := tr.preparedLine(src, before, 716*time.Millisecond); !strings.HasPrefix(got, "read plugin.wasm's compiled code from the compile cache in 716 ms") {
		t.Errorf("no new entry: %q", got)
	}
	folder := CacheFolder(tr.o.CacheDir, tr.o.HostVersion)
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "0123abcd"), []byte("code"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := tr.preparedLine(src, before, 8100*time.Millisecond); !strings.HasPrefix(got, "compiled plugin.wasm in 8.1 s, kept in the compile cache") {
		t.Errorf("a new entry: %q", got)
	}
	if got := preparingLine(src); !strings.HasPrefix(got, "preparing plugin.wasm (3.0 MB)") {
		t.Errorf("preparing line %q", got)
	}
}

func FuzzCheckWebAssembly(f *testing.F) {
	f.Add([]byte("\x7fELF"))
	f.Add([]byte("#!"))
	f.Add([]byte("é\xc3"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		err := checkWebAssembly(b)
		if (err == nil) != bytes.HasPrefix(b, wasmMagic) {
			t.Fatalf("checkWebAssembly(%q) = %v", b, err)
		}
	})
}
