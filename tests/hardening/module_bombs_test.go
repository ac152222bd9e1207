//go:build linux

package hardening

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A module of a few bytes that would make the compiler allocate per
// declared local (50 million of them: 1.3 GB and 12 s before the bound) is
// refused by build before wazero sees it, by the sentence of the bound,
// and the command's memory stays small.
func TestModuleBombRefusedAtBuild(t *testing.T) {
	body := []byte{1, 0x80, 0xe1, 0xeb, 0x17, 0x7f, 0x0b} // one group of 50,000,000 i32 locals, end
	module := []byte{0, 'a', 's', 'm', 1, 0, 0, 0,
		1, 4, 1, 0x60, 0, 0, // a type () -> ()
		3, 2, 1, 0, // one function
		10, byte(len(body) + 2), 1, byte(len(body))}
	module = append(module, body...)
	dir := plugin{manifest: map[string]any{"name": "bomb", "run": map[string]any{"wasm": "main.go"}}, id: "dev.escouade.hardening.bomb"}.write(t)
	writeFile(t, filepath.Join(dir, "plugin.wasm"), module)

	stdout, stderr, code, rss := cliRSS(t, "build", dir, "--home", t.TempDir())
	want := "plugin.wasm: function 0 declares 50000000 locals; the limit is 50000"
	if code == 0 || !strings.Contains(stdout+stderr, want) {
		t.Errorf("build exited %d with %q %q, want a failure saying %q", code, stdout, stderr, want)
	}
	t.Logf("build: exit %d, peak RSS %d MB", code, rss>>20)
	// The bound is the point; 300 MB leaves the command's own start
	// (the JS engine compiled in the cache included) far from 1.3 GB.
	if rss > 300<<20 {
		t.Errorf("build's peak memory was %d MB, want under 300 MB", rss>>20)
	}
}

// cliRSS is cli, with the command's peak resident memory in bytes.
func cliRSS(t *testing.T, args ...string) (stdout, stderr string, code int, rss int64) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bins, "escouade-plugin"), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode(), cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
}
