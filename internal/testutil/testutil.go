// Package testutil holds what the tests of several packages need alike:
// building a Go program to run as a real process, and a buffer a process's
// output goroutine and a test may share.
package testutil

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
)

// GoBuild builds the Go package pkg (an import path or a folder) into the
// file out (out.exe on Windows), for the system the tests run on, with the
// toolchain that runs the tests. Where that toolchain cannot run (the
// Windows tests under wine start no Linux program), the program is copied
// from the folder PrebuiltEnv names, where scripts/windows-tests built it
// before, by out's name.
func GoBuild(pkg, out string) error {
	if runtime.GOOS == "windows" {
		out += ".exe"
	}
	if dir := os.Getenv(PrebuiltEnv); dir != "" {
		return copyPrebuilt(filepath.Join(dir, filepath.Base(out)), out)
	}
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	cmd := exec.Command(goTool, "build", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return nil
}

// PrebuiltEnv names the folder of the programs GoBuild copies instead of
// building them.
const PrebuiltEnv = "ESCOUADE_TEST_PREBUILT"

func copyPrebuilt(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return fmt.Errorf("no prebuilt program (%s, filled by scripts/windows-tests): %w", PrebuiltEnv, err)
	}
	return os.WriteFile(to, b, 0o755)
}

// SyncBuffer is a bytes.Buffer safe for concurrent writes and reads: the
// stderr of a process, written by os/exec's copying goroutine while the
// test reads it.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// BuildReactor builds the Go package in dir as a WASI reactor module
// (GOOS=wasip1, -buildmode=c-shared) at out: how the Go kit's plugins are
// built for run.wasm.
func BuildReactor(dir, out string) error {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	cmd := exec.Command(goTool, "build", "-buildmode=c-shared", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build the reactor in %s: %v\n%s", dir, err, b)
	}
	return nil
}
