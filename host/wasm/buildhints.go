package wasm

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"
)

// The build lines a refusal of plugin.wasm names, by the language the
// module came from (docs/writing-a-plugin.md#11-a-module-in-another-language).
const (
	goBuildLine = "GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o plugin.wasm ."
	cBuildLine  = "clang --target=wasm32-wasi -O2 -o plugin.wasm main.c"
)

// wasmMagic starts every WebAssembly binary.
var wasmMagic = []byte("\x00asm")

// checkWebAssembly refuses a plugin.wasm that is not a WebAssembly binary,
// saying what it looks like instead and the build line for that case: the
// compiler's own "invalid magic number" names neither.
func checkWebAssembly(b []byte) error {
	if bytes.HasPrefix(b, wasmMagic) {
		return nil
	}
	looks, line := lookOf(b)
	return fmt.Errorf("%s is not a WebAssembly file: %s; build it for WebAssembly: %s", ModuleFile, looks, line)
}

// lookOf says what a file that is not WebAssembly looks like, and the
// build line that makes a module instead.
func lookOf(b []byte) (looks, buildLine string) {
	either := goBuildLine + " (Go), or " + cBuildLine + " (C, with wasi-libc)"
	native := func(format string) (string, string) {
		if bytes.Contains(b, []byte("\xff Go buildinf:")) {
			return "it is a Go program built for " + format + " (GOOS and GOARCH were not set)", goBuildLine
		}
		return "it is a native program for " + format + " (built without a WebAssembly target)", cBuildLine + ", or " + goBuildLine + " (Go)"
	}
	switch {
	case len(b) == 0:
		return "it is empty (a build that failed half-way?)", either
	case bytes.HasPrefix(b, []byte("\x7fELF")):
		return native("Linux (ELF)")
	case bytes.HasPrefix(b, []byte{0xcf, 0xfa, 0xed, 0xfe}), bytes.HasPrefix(b, []byte{0xce, 0xfa, 0xed, 0xfe}),
		bytes.HasPrefix(b, []byte{0xca, 0xfe, 0xba, 0xbe}):
		return native("macOS (Mach-O)")
	case bytes.HasPrefix(b, []byte("MZ")):
		return native("Windows (PE)")
	case bytes.HasPrefix(b, []byte("#!")):
		return "it is a script (it starts with #!): a script is a process's run.command, not a module", either
	case bytes.HasPrefix(b, []byte("(module")) || bytes.HasPrefix(bytes.TrimSpace(b), []byte("(module")):
		return "it is WebAssembly text (.wat), not the binary: turn it into one with wat2wasm", "wat2wasm plugin.wat -o plugin.wasm"
	case looksLikeText(b):
		return "it is text (it starts with " + fmt.Sprintf("%q", firstBytes(b)) + ")", either
	}
	return fmt.Sprintf("it starts with the bytes % x, not \\0asm", firstBytes(b)), either
}

func looksLikeText(b []byte) bool {
	head := firstBytes(b)
	for cut := 0; cut < utf8.UTFMax && cut < len(head); cut++ {
		if part := head[:len(head)-cut]; utf8.Valid(part) { // a rune may be cut at the end
			return !bytes.ContainsRune(part, 0)
		}
	}
	return false
}

func firstBytes(b []byte) []byte {
	if len(b) > 16 {
		return b[:16]
	}
	return b
}

// errNotReactor is a Go kit module built without -buildmode=c-shared:
// it exports the kit's escouade-turn, and Go's _start (a command's main)
// instead of _initialize, so the Go runtime is never set up and every turn
// would crash with "wasmexport function called before runtime
// initialization".
var errNotReactor = errors.New("its module exports " + turnExport + " and " + startExport + " but no " + initializeExport +
	": a Go module built without -buildmode=c-shared, whose runtime the host cannot start; build it with " + goBuildLine)
