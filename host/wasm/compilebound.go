package wasm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/escouade-dev/escouade-plugin/host/wasm/engine"
	"github.com/escouade-dev/escouade-plugin/protocol"
)

// The bounds of one module's compile (docs/protocol.md#limits): the
// pre-pass bounds what a module's shape may be, but not what the compiler
// makes of it (2,000 memory.fill in one function, 20 KB, took it 51 s
// and 2 GB). A plugin's module is therefore compiled in a child process,
// the host's own binary started again, which is ended past either bound.
const (
	// DefaultCompileTime bounds a compile's wall-clock time: the largest
	// real modules compile in seconds on a loaded 2-core machine.
	DefaultCompileTime = protocol.CompileTime
	// DefaultCompileMemory bounds a compile's memory: the data the child
	// maps (its Go heap, the compiler's tables, the machine code).
	DefaultCompileMemory = protocol.CompileMemory
)

// The child's environment: compileChildEnv marks the process as a
// compile child (its value is the memory bound in bytes); the cache
// folder it compiles into is compileCacheEnv's, none when empty.
const (
	compileChildEnv = "ESCOUADE_WASM_COMPILE_CHILD"
	compileCacheEnv = "ESCOUADE_WASM_COMPILE_CACHE"
)

// Exit codes of a compile child; the Go runtime's own fatal error (out of
// memory included) exits with 2.
const (
	childCompileFailed = 1 // the compiler refused the module: its sentence on stderr
	childOutOfMemory   = 3 // an allocation failed at the memory bound
	childCannotStart   = 4 // the child could not read its module or open its cache
)

// compileBound names which bound a compile passed.
type compileBound int

const (
	boundTime compileBound = iota + 1
	boundMemory
)

// compileBoundError is a compile ended at one of its bounds; its text
// names the file and the bound.
type compileBoundError struct {
	bound compileBound
	text  string
}

func (e *compileBoundError) Error() string { return e.text }

// init makes a compile child of any binary that links this package: the
// CLI, a test binary, an app that embeds the host. It runs before the
// binary's main and never returns.
func init() {
	if bound, ok := os.LookupEnv(compileChildEnv); ok {
		os.Exit(compileChild(bound, os.Getenv(compileCacheEnv), os.Stdin, os.Stderr))
	}
}

// compileChild is the child's whole life: bound its memory, read the
// module on stdin, compile it into the cache folder, say why not on
// stderr.
func compileChild(bound, cacheFolder string, stdin io.Reader, stderr io.Writer) int {
	limit, err := strconv.ParseUint(bound, 10, 64)
	if err != nil || limit == 0 {
		fmt.Fprintf(stderr, "the compile child was given no memory bound (%q)\n", bound)
		return childCannotStart
	}
	// No soft limit for the collector beside it: near the bound it would
	// collect without end, and a module past it would take the time bound
	// to end rather than the memory's. The largest real compiles map a
	// fifth of the bound, garbage included (docs/RATIONALE.md).
	limitMemory(limit)
	b, err := io.ReadAll(io.LimitReader(stdin, MaxModuleBytes+1))
	if err != nil || len(b) > MaxModuleBytes {
		fmt.Fprintf(stderr, "the compile child cannot read its module: %v\n", err)
		return childCannotStart
	}
	ctx := context.Background()
	cache := engine.NewCompilationCache()
	if cacheFolder != "" {
		if cache, err = engine.NewCompilationCacheWithDir(cacheFolder); err != nil {
			fmt.Fprintf(stderr, "the compile child cannot open the compile cache: %v\n", err)
			return childCannotStart
		}
	}
	r := engine.NewRuntime(ctx, runtimeConfig(cache, true))
	if _, err := r.CompileModule(ctx, b); err != nil {
		if outOfMemory(err) {
			return childOutOfMemory
		}
		fmt.Fprintln(stderr, firstLine(err.Error()))
		return childCompileFailed
	}
	return 0
}

// outOfMemory reports whether an error is an allocation the memory bound
// refused: the compiler's (the machine code's mapping), the Go runtime's
// fatal error, whose words vary with what it allocated, the race
// detector's (ENOMEM, errno 12), or a thread's stack that could not be
// mapped (pthread_create, in a binary built with cgo).
func outOfMemory(err error) bool {
	text := err.Error()
	for _, words := range []string{"cannot allocate memory", "out of memory", "(errno: 12)", "pthread_create failed"} {
		if strings.Contains(text, words) {
			return true
		}
	}
	return false
}

// compileIsolated reports whether src is compiled in a child under the
// bounds: a plugin's module, not the host's own JS engine, and not one
// that compiled within them before (checked: its code is in the cache).
func (t *Transport) compileIsolated(src source, checked bool) bool {
	return !src.trusted && !checked && !t.o.CompileInProcess
}

// compileInChild compiles src in a child process under the compile
// bounds, into the cache on disk where the caller's compile then reads
// it (without a cache the child only shows the compile ends within the
// bounds, and the caller compiles again). A binary that cannot be started
// again returns errNoChild: the caller compiles in this process,
// unbounded (docs/RATIONALE.md says why).
func (t *Transport) compileInChild(ctx context.Context, src source) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("%w: %v", errNoChild, err)
	}
	bounded, cancel := context.WithTimeout(ctx, t.o.CompileTime)
	defer cancel()
	cmd := exec.CommandContext(bounded, exe)
	cmd.Env = append(os.Environ(),
		compileChildEnv+"="+strconv.FormatUint(t.o.CompileMemory, 10),
		compileCacheEnv+"="+t.cacheFolder())
	cmd.Stdin = bytes.NewReader(src.bytes)
	cmd.SysProcAttr = childAttr()
	var stderr limitedBuffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = time.Second // the pipes of a killed child's children
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%w: %v", errNoChild, err)
	}
	err = cmd.Wait()
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case bounded.Err() != nil:
		return t.boundError(src, boundTime)
	}
	code := cmd.ProcessState.ExitCode()
	text := firstLine(strings.TrimSpace(stderr.String()))
	switch {
	case code == childCompileFailed:
		return errors.New(text)
	case code == childOutOfMemory || outOfMemory(errors.New(stderr.String())):
		return t.boundError(src, boundMemory) // the Go runtime's fatal error, or the race detector's
	}
	return fmt.Errorf("its compile ended (%v): %s", err, text)
}

// errNoChild is a compile child that could not be started.
var errNoChild = errors.New("the host's binary cannot be started again to compile in a child")

// boundError is the sentence of a compile past a bound.
func (t *Transport) boundError(src source, b compileBound) error {
	if b == boundTime {
		return &compileBoundError{bound: b, text: fmt.Sprintf("compiling %s took more than %s (the bound on a module's compile)", src.name, durationText(t.o.CompileTime))}
	}
	return &compileBoundError{bound: b, text: fmt.Sprintf("compiling %s took more than %s of memory (the bound on a module's compile)", src.name, bytesText(t.o.CompileMemory))}
}

// cacheFolder is the compile cache's folder on disk, or "".
func (t *Transport) cacheFolder() string {
	if t.o.CacheDir == "" {
		return ""
	}
	return CacheFolder(t.o.CacheDir, t.o.HostVersion)
}

// durationText writes a bound: "60 s", "250 ms".
func durationText(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%d s", d/time.Second)
	}
	return fmt.Sprintf("%d ms", d.Milliseconds())
}

// bytesText writes a bound: "1 GiB", "256 MiB".
func bytesText(n uint64) string {
	if n%(1<<30) == 0 {
		return fmt.Sprintf("%d GiB", n>>30)
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

// limitedBuffer keeps the first 64 KiB written to it: a child's stderr,
// of which one line is told.
type limitedBuffer struct{ bytes.Buffer }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := 64<<10 - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
