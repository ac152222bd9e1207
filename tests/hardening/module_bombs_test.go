//go:build linux

package hardening

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// A module nesting 5,000 blocks in one function (the compiler's time
// grows in the square of it) is refused by build with the bound's
// sentence.
func TestDeepNestingRefusedAtBuild(t *testing.T) {
	body := []byte{0} // no locals
	for range 5000 {
		body = append(body, 0x02, 0x40) // block
	}
	for range 5001 {
		body = append(body, 0x0b) // end
	}
	module := append([]byte{0, 'a', 's', 'm', 1, 0, 0, 0,
		1, 4, 1, 0x60, 0, 0, // a type () -> ()
		3, 2, 1, 0, // one function
		10}, uleb(len(body)+len(uleb(len(body)))+1)...)
	module = append(append(append(module, 1), uleb(len(body))...), body...)
	dir := plugin{manifest: map[string]any{"name": "deep", "run": map[string]any{"wasm": "main.go"}}, id: "dev.escouade.hardening.deep"}.write(t)
	writeFile(t, filepath.Join(dir, "plugin.wasm"), module)

	stdout, stderr, code := cli(t, "build", dir, "--home", t.TempDir())
	want := "plugin.wasm: function 0 nests blocks 4097 deep; the limit is 4096"
	if code == 0 || !strings.Contains(stdout+stderr, want) {
		t.Errorf("build exited %d with %q %q, want a failure saying %q", code, stdout, stderr, want)
	}
}

// A reactor of 20 KB whose _initialize is 2,000 memory.fill of 4096 bytes,
// within every bound of the pre-pass, made build compile for 51 s and
// 2 GB. Its compile runs in a child under the compile's bounds (1 GiB,
// 60 s), which is ended at the memory's: build refuses it by the bound's
// sentence, and the command and its child stay near the bound.
func TestCompileBombRefusedAtBuild(t *testing.T) {
	fill := []byte{0x41, 0, 0x41, 1, 0x41, 0x80, 0x20, 0xfc, 11, 0} // memory.fill(0, 1, 4096)
	initialize := []byte{0}                                         // no locals
	for range 2000 {
		initialize = append(initialize, fill...)
	}
	initialize = append(initialize, 0x0b)
	turn := []byte{0, 0x0b}
	module := []byte{0, 'a', 's', 'm', 1, 0, 0, 0,
		1, 4, 1, 0x60, 0, 0, // a type () -> ()
		3, 3, 2, 0, 0, // two functions
		5, 3, 1, 0, 1, // a memory of one page
		7, 31, 2, 11, '_', 'i', 'n', 'i', 't', 'i', 'a', 'l', 'i', 'z', 'e', 0, 0,
		13, 'e', 's', 'c', 'o', 'u', 'a', 'd', 'e', '-', 't', 'u', 'r', 'n', 0, 1,
		10}
	code := append(append(append([]byte{2}, uleb(len(initialize))...), initialize...), byte(len(turn)))
	code = append(code, turn...)
	module = append(append(module, uleb(len(code))...), code...)
	dir := plugin{manifest: map[string]any{"name": "fills", "run": map[string]any{"wasm": "main.go"}}, id: "dev.escouade.hardening.fills"}.write(t)
	writeFile(t, filepath.Join(dir, "plugin.wasm"), module)

	began := time.Now()
	stdout, stderr, code2, rss := cliRSS(t, "build", dir, "--home", t.TempDir())
	t.Logf("build: exit %d after %s, peak RSS %d MB", code2, time.Since(began).Round(time.Second), rss>>20)
	want := "compiling plugin.wasm took more than 1 GiB of memory (the bound on a module's compile)"
	if code2 == 0 || !strings.Contains(stdout+stderr, want) {
		t.Errorf("build exited %d with %q %q, want a failure saying %q", code2, stdout, stderr, want)
	}
	// Unbounded, the compile alone reached 2 GB; bounded, the child maps
	// at most 1 GiB of data, beside its code and the command's own.
	if rss > 1300<<20 {
		t.Errorf("build's peak memory was %d MB, want under 1300 MB", rss>>20)
	}
}

// A module growing its table (declared without a maximum) by 2^27 entries,
// four times, added 1 GiB of host memory a grow. Its table's maximum is
// lowered, so each grow fails (-1, the module exits with -1+2 = 1) and the
// host stays small.
func TestTableGrowBombThroughRun(t *testing.T) {
	grow := []byte{0xd0, 0x70, 0x41, 0x80, 0x80, 0x80, 0xc0, 0x00, 0xfc, 15, 0} // table.grow 0 by 2^27 of ref.null
	code := []byte{0}
	for range 3 {
		code = append(append(code, grow...), 0x1a) // drop
	}
	code = append(append(code, grow...), 0x41, 2, 0x6a, 0x10, 0, 0x0b) // + 2, proc_exit, end
	module := []byte{0, 'a', 's', 'm', 1, 0, 0, 0,
		1, 8, 2, 0x60, 0, 0, 0x60, 1, 0x7f, 0, // types () -> () and (i32) -> ()
		2, 36, 1, 22}
	module = append(module, "wasi_snapshot_preview1"...)
	module = append(module, 9)
	module = append(module, "proc_exit"...)
	module = append(module, 0, 1, // a function of type 1
		3, 2, 1, 0, // one function of type 0
		4, 4, 1, 0x70, 0, 1, // a funcref table of 1 entry, no maximum
		5, 3, 1, 0, 1, // a memory of one page
		7, 10, 1, 6, '_', 's', 't', 'a', 'r', 't', 0, 1, // export _start
		10)
	module = append(append(append(module, uleb(len(code)+len(uleb(len(code)))+1)...), 1), uleb(len(code))...)
	module = append(module, code...)
	dir := plugin{manifest: map[string]any{"name": "grow", "run": map[string]any{"wasm": "main.go"}}, id: "dev.escouade.hardening.grow"}.write(t)
	writeFile(t, filepath.Join(dir, "plugin.wasm"), module)

	s := run(t, dir, "--follow")
	s.send(`{"op":"call","id":"c","method":"any/thing"}`)
	s.next("the crash line", func(l line) bool {
		return l.str("op") == "journal-line" && strings.Contains(l.str("line"), " crash ")
	})
	journal := journalFiles(t, s.home, "dev.escouade.hardening.grow")
	if !strings.Contains(journal, "crashed: exit code 1") {
		t.Errorf("the grows did not all fail (exit code 1); journal:\n%s", tail(journal, 2000))
	}
	s.close()
	rss := commandPeak(t, s.cmd)
	t.Logf("run: peak RSS %d MB", rss>>20)
	// Four grows unbounded took 5.8 GB; the host's own start (the
	// compiler included) is far under 300 MB.
	if rss > 300<<20 {
		t.Errorf("run's peak memory was %d MB, want under 300 MB", rss>>20)
	}
}

// A module writing stdout forever without a newline ran 30 s at one core:
// each wait for the host to read restarted its turn clock. Its line now
// ends the instance once past the protocol's 8 MiB, by its sentence.
func TestStdoutFloodWithoutNewline(t *testing.T) {
	code := []byte{0,
		0x03, 0x40, // loop
		0x41, 1, 0x41, 0, 0x41, 1, 0x41, 8, 0x10, 0, 0x1a, // fd_write(1, the iovec at 0, 1, &written at 8), drop
		0x0c, 0, // br 0
		0x0b, 0x0b}
	data := []byte{16, 0, 0, 0, 0, 0, 1, 0} // an iovec at 0: 65536 bytes from 16 (zeros)
	module := []byte{0, 'a', 's', 'm', 1, 0, 0, 0,
		1, 12, 2, 0x60, 0, 0, 0x60, 4, 0x7f, 0x7f, 0x7f, 0x7f, 1, 0x7f, // () -> () and fd_write's type
		2, 35, 1, 22}
	module = append(module, "wasi_snapshot_preview1"...)
	module = append(module, 8)
	module = append(module, "fd_write"...)
	module = append(module, 0, 1,
		3, 2, 1, 0,
		5, 3, 1, 0, 2, // a memory of two pages
		7, 10, 1, 6, '_', 's', 't', 'a', 'r', 't', 0, 1,
		10)
	module = append(append(append(module, uleb(len(code)+len(uleb(len(code)))+1)...), 1), uleb(len(code))...)
	module = append(module, code...)
	module = append(module, 11, byte(6+len(data)), 1, 0, 0x41, 0, 0x0b, byte(len(data)))
	module = append(module, data...)
	dir := plugin{manifest: map[string]any{"name": "flood", "run": map[string]any{"wasm": "main.go"}}, id: "dev.escouade.hardening.flood"}.write(t)
	writeFile(t, filepath.Join(dir, "plugin.wasm"), module)

	s := run(t, dir, "--follow")
	s.state() // the module is compiled once the command answers
	began := time.Now()
	s.send(`{"op":"call","id":"c","method":"any/thing"}`)
	crash := s.next("the crash line", func(l line) bool {
		return l.str("op") == "journal-line" && strings.Contains(l.str("line"), " crash ")
	})
	took := time.Since(began)
	want := "its instance crashed: it wrote a stdout line past 8 MiB, the protocol's limit of a line, without a newline"
	if !strings.Contains(crash.str("line"), want) {
		t.Errorf("crash line %q, want %q", crash.str("line"), want)
	}
	// 8 MiB is written in well under the 2 s of a turn; 10 s allows a
	// loaded machine's start of the instance and still tells it from
	// the 30 s and more of before.
	if took > 10*time.Second {
		t.Errorf("the flood ended %s after the call, want within 10 s", took)
	}
	s.close()
}

// uleb is n in LEB128, as the binary format writes sizes and counts.
func uleb(n int) []byte {
	var b []byte
	for {
		c := byte(n & 0x7f)
		n >>= 7
		if n == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
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
	return out.String(), errb.String(), cmd.ProcessState.ExitCode(), commandPeak(t, cmd)
}
