//go:build linux

package hardening

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// bins holds the command and the fixture programs, built once.
var bins string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hardening-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := 1
	if err := build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		bins = dir
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// build compiles the command without the race detector (floods stay fast)
// and each fixture of testdata.
func build(dir string) error {
	targets := map[string]string{
		"escouade-plugin": "../../cmd/escouade-plugin",
		"puppet":          "./testdata/puppet",
		"strays":          "./testdata/strays",
	}
	for name, pkg := range targets {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, name), pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	return nil
}

// waitLong is how long a test waits for an event that should come at
// once; it is generous because the machine may be loaded.
func waitLong(t *testing.T) time.Duration {
	d := 90 * time.Second
	if dl, ok := t.Deadline(); ok {
		if left := time.Until(dl) / 2; left < d {
			d = left
		}
	}
	return d
}

// plugin describes a plugin folder to write.
type plugin struct {
	fixture  string            // program in bins
	id       string            // defaults to dev.escouade.hardening.<fixture>
	secrets  []string          // permissions.secrets
	files    map[string]string // more files of the folder
	manifest map[string]any    // keys replacing the defaults
}

// write makes the folder of p under t's temp dir and returns it.
func (p plugin) write(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if p.id == "" {
		p.id = "dev.escouade.hardening." + p.fixture
	}
	m := map[string]any{
		"id":         p.id,
		"name":       p.fixture,
		"version":    "1.0.0",
		"escouade":   map[string]any{"api": "1"},
		"run":        map[string]any{"command": []string{"./bin/" + p.fixture}},
		"activation": []string{"onCall"},
	}
	if len(p.secrets) > 0 {
		m["permissions"] = map[string]any{"secrets": p.secrets}
	}
	for k, v := range p.manifest {
		m[k] = v
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "escouade-plugin.json"), b)
	if p.fixture != "" {
		exe, err := os.ReadFile(filepath.Join(bins, p.fixture))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "bin", p.fixture), exe)
		if err := os.Chmod(filepath.Join(dir, "bin", p.fixture), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range p.files {
		writeFile(t, filepath.Join(dir, name), []byte(text))
	}
	return dir
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// session is one escouade-plugin run process and its console.
type session struct {
	t      *testing.T
	cmd    *exec.Cmd
	home   string
	stdin  io.WriteCloser
	lines  chan []byte // raw stdout lines
	stderr *bytes.Buffer

	mu   sync.Mutex
	seen [][]byte // every stdout line, for the checks at the end
	done chan struct{}
	err  error
}

// run starts escouade-plugin run dir --home <tmp> args... and stops it at
// the end of the test if it still runs.
func run(t *testing.T, dir string, args ...string) *session {
	t.Helper()
	home := t.TempDir()
	return runHome(t, dir, home, args...)
}

func runHome(t *testing.T, dir, home string, args ...string) *session {
	t.Helper()
	s := &session{t: t, home: home, lines: make(chan []byte, 1<<16), stderr: new(bytes.Buffer), done: make(chan struct{})}
	s.cmd = exec.Command(filepath.Join(bins, "escouade-plugin"), append([]string{"run", dir, "--home", home}, args...)...)
	s.cmd.Stderr = &lockedWriter{w: s.stderr, mu: &s.mu}
	var err error
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go s.read(out)
	t.Cleanup(func() {
		select {
		case <-s.done:
		default:
			s.cmd.Process.Kill()
			<-s.done
		}
	})
	return s
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func (s *session) read(out io.Reader) {
	r := bufio.NewReaderSize(out, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			line = bytes.TrimRight(line, "\n")
			s.mu.Lock()
			s.seen = append(s.seen, line)
			s.mu.Unlock()
			select {
			case s.lines <- line:
			default: // nobody waits for this many lines; seen keeps them
			}
		}
		if err != nil {
			break
		}
	}
	close(s.lines)
	s.err = s.cmd.Wait()
	close(s.done)
}

// send writes one console line.
func (s *session) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		s.t.Fatalf("writing %.200q: %v", line, err)
	}
}

// sendJSON writes v as one console line.
func (s *session) sendJSON(v any) {
	s.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		s.t.Fatal(err)
	}
	s.send(string(b))
}

// line is a decoded console output line.
type line map[string]any

func (l line) str(k string) string { v, _ := l[k].(string); return v }

// next waits for the first output line for which want is true, skipping
// the others; it fails the test when the output ends or the wait is over.
func (s *session) next(what string, want func(line) bool) line {
	s.t.Helper()
	timer := time.NewTimer(waitLong(s.t))
	defer timer.Stop()
	for {
		select {
		case raw, ok := <-s.lines:
			if !ok {
				s.t.Fatalf("waiting for %s: the output ended (exit: %v); stderr:\n%s", what, s.err, s.stderrText())
			}
			var l line
			if err := json.Unmarshal(raw, &l); err != nil {
				s.t.Fatalf("waiting for %s: output line is not JSON: %v: %.300q", what, err, raw)
			}
			if want(l) {
				return l
			}
		case <-timer.C:
			s.t.Fatalf("waiting for %s: nothing came within %v; stderr:\n%s\njournal files (tail):\n%s", what, waitLong(s.t), s.stderrText(), tail(journalFilesAll(s.home), 3000))
		}
	}
}

// seenOrNext is next, but a line already written (even one skipped by an
// earlier wait) counts too.
func (s *session) seenOrNext(what string, want func(line) bool) {
	s.t.Helper()
	for _, raw := range s.output() {
		var l line
		if json.Unmarshal(raw, &l) == nil && want(l) {
			return
		}
	}
	s.next(what, want)
}

func isOp(op string) func(line) bool { return func(l line) bool { return l.str("op") == op } }

// answer waits for the answer line of the call id.
func (s *session) answer(id string) line {
	s.t.Helper()
	return s.next("the answer of "+id, func(l line) bool { return l.str("op") == "answer" && l.str("id") == id })
}

// call sends a call and waits for its answer.
func (s *session) call(id, method string, params any) line {
	s.t.Helper()
	s.sendJSON(map[string]any{"op": "call", "id": id, "method": method, "params": params})
	return s.answer(id)
}

// state asks for the state and waits for a state line.
func (s *session) state() line {
	s.t.Helper()
	s.send(`{"op":"state"}`)
	return s.next("a state line", isOp("state"))
}

// journalOp asks for the last n journal lines through the console.
func (s *session) journalOp(n int) []string {
	s.t.Helper()
	s.sendJSON(map[string]any{"op": "journal", "n": n})
	l := s.next("a journal line", isOp("journal"))
	var lines []string
	for _, v := range l["lines"].([]any) {
		lines = append(lines, v.(string))
	}
	return lines
}

// close sends close and waits for the command to exit.
func (s *session) close() {
	s.t.Helper()
	s.send(`{"op":"close"}`)
	s.wait()
}

// wait waits for the command to exit and fails if it did not exit 0.
func (s *session) wait() {
	s.t.Helper()
	select {
	case <-s.done:
	case <-time.After(waitLong(s.t)):
		s.t.Fatalf("the command did not exit within %v", waitLong(s.t))
	}
	if s.err != nil {
		s.t.Errorf("the command exited with %v; stderr:\n%s", s.err, s.stderrText())
	}
}

func (s *session) stderrText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// output is every stdout line the command wrote so far.
func (s *session) output() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.seen...)
}

// journalFiles is the text of the plugin's journal files under home.
func journalFiles(t *testing.T, home, id string) string {
	t.Helper()
	var all strings.Builder
	for _, name := range []string{id + ".log.1", id + ".log"} {
		b, err := os.ReadFile(filepath.Join(home, "plugin-logs", name))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		all.Write(b)
	}
	return all.String()
}

// cli runs escouade-plugin with args and returns its stdout, stderr and
// exit code.
func cli(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLong(t))
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bins, "escouade-plugin"), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code = cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatalf("escouade-plugin %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// journalFilesAll is the text of every journal file under home.
func journalFilesAll(home string) string {
	var all strings.Builder
	names, _ := filepath.Glob(filepath.Join(home, "plugin-logs", "*"))
	for _, n := range names {
		b, _ := os.ReadFile(n)
		all.Write(b)
	}
	return all.String()
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// decode is raw as a line, empty when it is not JSON.
func decode(raw []byte) line {
	var l line
	_ = json.Unmarshal(raw, &l)
	return l
}
