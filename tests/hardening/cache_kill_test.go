//go:build linux

package hardening

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A build killed (the command and its compile child, SIGKILL to their
// group) at random points of its compile cache's write leaves temporary
// files; the next start removes those older than any write lasts, keeps a
// live writer's, and the cache it finds is whole: the build after reads it
// or compiles again, never fails (docs/protocol.md#the-compile-cache).
func TestCompileCacheKilledMidWrite(t *testing.T) {
	dir := helloWasmPlugin(t)
	warm := t.TempDir()
	if out, errOut, code := cli(t, "build", dir, "--home", warm); code != 0 {
		t.Fatalf("build: %d\n%s%s", code, out, errOut)
	}
	runtimeDir, size := compiledCodeFolder(t, warm) // relative to the home
	left := 0
	for round := range 3 {
		home := t.TempDir()
		watched := filepath.Join(home, runtimeDir)
		if err := os.MkdirAll(watched, 0o700); err != nil {
			t.Fatal(err)
		}
		at := rand.Int64N(size)
		buildKilledMidWrite(t, dir, home, watched, at)
		temps := cacheTemps(t, home)
		t.Logf("round %d: killed once %d of %d bytes were written; temporary files left: %v", round, at, size, temps)
		left += len(temps)
		for _, name := range temps {
			hoursAgo := time.Now().Add(-2 * time.Hour)
			if err := os.Chtimes(name, hoursAgo, hoursAgo); err != nil {
				t.Fatal(err)
			}
		}
		live := filepath.Join(watched, "0123.42.tmp") // a write under way in another process
		writeFile(t, live, []byte("being written"))
		if out, errOut, code := cli(t, "build", dir, "--home", home); code != 0 {
			t.Fatalf("build after the kill: %d\n%s%s", code, out, errOut)
		}
		if after := cacheTemps(t, home); len(after) != 1 || after[0] != live {
			t.Errorf("temporary files after the next start: %v, want only the live writer's %s", after, live)
		}
	}
	if left == 0 {
		t.Error("no kill left a temporary file: the test did not try what it means to")
	}
}

// helloWasmPlugin is examples/hello-wasm with its module built.
func helloWasmPlugin(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("..", "..", "examples", "hello-wasm")
	for _, name := range []string{"escouade-plugin.json", "greetings.json"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, name), b)
	}
	build := exec.Command("go", "build", "-buildmode=c-shared", "-o", filepath.Join(dir, "plugin.wasm"), ".")
	build.Dir = src
	build.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return dir
}

// compiledCodeFolder is the folder of home where the runtime keeps
// compiled code, the one holding the largest file of the cache, and that
// file's size.
func compiledCodeFolder(t *testing.T, home string) (string, int64) {
	t.Helper()
	var best string
	var size int64
	_ = filepath.Walk(home, func(path string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() && info.Size() > size {
			best, size = path, info.Size()
		}
		return nil
	})
	if best == "" {
		t.Fatal("the build kept nothing in the cache")
	}
	rel, err := filepath.Rel(home, filepath.Dir(best))
	if err != nil {
		t.Fatal(err)
	}
	return rel, size
}

// buildKilledMidWrite runs build in a group of its own and kills the
// group once the first file created in watched holds at bytes (or is
// gone: its write ended), or once the build ends if it created none.
func buildKilledMidWrite(t *testing.T, dir, home, watched string, at int64) {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	defer unix.Close(fd)
	if _, err := unix.InotifyAddWatch(fd, watched, unix.IN_CREATE); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bins, "escouade-plugin"), "build", dir, "--home", home)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	go func() { _ = cmd.Wait(); close(ended) }()
	created := make(chan string, 1)
	go func() { created <- firstCreated(fd) }()
	select {
	case name := <-created:
		awaitSize(filepath.Join(watched, name), at, ended)
	case <-ended:
	case <-time.After(waitLong(t)):
		t.Error("the build wrote nothing in the cache")
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the command and its compile child
	<-ended
}

// firstCreated reads one inotify event and returns the name it carries.
func firstCreated(fd int) string {
	buf := make([]byte, unix.SizeofInotifyEvent+unix.PathMax+1)
	n, err := unix.Read(fd, buf)
	if err != nil || n < unix.SizeofInotifyEvent {
		return ""
	}
	name := buf[unix.SizeofInotifyEvent:n]
	return strings.TrimRight(string(name), "\x00")
}

// awaitSize polls path until it holds at least n bytes, is gone, or the
// build ended: a file's growth is told by no event.
func awaitSize(path string, n int64, ended <-chan struct{}) {
	for {
		info, err := os.Stat(path)
		if err != nil || info.Size() >= n {
			return
		}
		select {
		case <-ended:
			return
		default:
			runtime.Gosched()
		}
	}
}

// cacheTemps lists the temporary files of the cache of home.
func cacheTemps(t *testing.T, home string) []string {
	t.Helper()
	var out []string
	_ = filepath.Walk(filepath.Join(home, "wasm-cache"), func(path string, info os.FileInfo, err error) error {
		name := filepath.Base(path)
		if err == nil && info.Mode().IsRegular() && (strings.HasSuffix(name, ".tmp") || strings.HasPrefix(name, ".")) {
			out = append(out, path)
		}
		return nil
	})
	return out
}
