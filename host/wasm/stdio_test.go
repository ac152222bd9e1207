package wasm

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/host/wasm/engine"
)

// countingClock counts the turns stdio starts and ends.
type countingClock struct{ pauses, resumes atomic.Int32 }

func (c *countingClock) pause()  { c.pauses.Add(1) }
func (c *countingClock) resume() { c.resumes.Add(1) }

// A reactor's stdin never waits: whole lines only, EAGAIN when empty, EOF
// once closed and drained.
func TestStdinReactor(t *testing.T) {
	var clock countingClock
	in := newStdin(true, 1<<20, &clock)
	buf := make([]byte, 64)
	if _, err := in.Write([]byte("half")); err != nil {
		t.Fatal(err)
	}
	if n, err := in.Read(buf); n != 0 || !errors.Is(err, engine.EAGAIN) {
		t.Fatalf("read of half a line: %d, %v; want EAGAIN", n, err)
	}
	if ready, errno := in.Poll(engine.POLLIN, -1); ready || errno != 0 {
		t.Fatalf("poll of half a line: %v, %v; want not ready at once", ready, errno)
	}
	if _, err := in.Write([]byte(" line\nnext")); err != nil {
		t.Fatal(err)
	}
	if run, last := in.next(); !run || last {
		t.Fatalf("next %v %v, want a turn", run, last)
	}
	n, err := in.Read(buf)
	if got := string(buf[:n]); got != "half line\n" || err != nil {
		t.Fatalf("read %q, %v", got, err)
	}
	if in.setNonblocking(true) || in.isNonblocking() {
		t.Error("a reactor's stdin became non-blocking")
	}
	_ = in.Close()
	if run, last := in.next(); !run || !last {
		t.Fatalf("next after Close %v %v, want a last turn", run, last)
	}
	if n, err := in.Read(buf); n != 0 || err != io.EOF {
		t.Fatalf("read after Close: %d, %v; want EOF", n, err)
	}
	if clock.pauses.Load() != 0 {
		t.Error("a reactor's read stopped its turn clock")
	}
	if clock.resumes.Load() != 1 {
		t.Errorf("%d turns started by reads, want 1 (the read of a line)", clock.resumes.Load())
	}
	if _, err := in.Write([]byte("x\n")); !errors.Is(err, os.ErrClosed) {
		t.Errorf("write after Close: %v", err)
	}
}

// A command's read of an empty stdin waits, its turn clock stopped, until
// a line comes; a non-blocking one reads EAGAIN; a poll waits its timeout.
func TestStdinCommand(t *testing.T) {
	var clock countingClock
	in := newStdin(false, 1<<20, &clock)
	got := make(chan string)
	go func() {
		buf := make([]byte, 64)
		n, _ := in.Read(buf)
		got <- string(buf[:n])
	}()
	if _, err := in.Write([]byte("line\n")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "line\n" {
		t.Fatalf("read %q", s)
	}
	if ready, _ := in.Poll(engine.POLLIN, 1); ready {
		t.Error("poll of an empty stdin ready")
	}
	if p, r := clock.pauses.Load(), clock.resumes.Load(); r != p+1 {
		t.Errorf("%d pauses, %d resumes; want a wake after each wait, and a turn for the read", p, r)
	}
	in.setNonblocking(true)
	if _, err := in.Read(make([]byte, 8)); !errors.Is(err, engine.EAGAIN) {
		t.Errorf("non-blocking read: %v, want EAGAIN", err)
	}
	in.abort()
	if ready, _ := in.Poll(engine.POLLIN, -1); !ready {
		t.Error("poll after abort not ready")
	}
	if run, _ := in.next(); run {
		t.Error("a turn after abort")
	}
}

// A write past the buffer waits for room, until a read makes some or a
// Close (the connection's write timeout closes its writer) ends it.
func TestStdinBound(t *testing.T) {
	in := newStdin(true, 4, &countingClock{})
	if _, err := in.Write([]byte("12345\n")); err != nil {
		t.Fatal(err) // a line goes in whole, whatever its length
	}
	wrote := make(chan error)
	go func() { _, err := in.Write([]byte("y\n")); wrote <- err }()
	if _, err := in.Read(make([]byte, 64)); err != nil {
		t.Fatal(err)
	}
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	if _, err := in.Write([]byte("12345\n")); err != nil {
		t.Fatal(err)
	}
	go func() { _, err := in.Write([]byte("x\n")); wrote <- err }()
	in.Close()
	if err := <-wrote; !errors.Is(err, os.ErrClosed) {
		t.Fatalf("write past the bound, then Close: %v, want os.ErrClosed", err)
	}
}

// Stdout hands on whole lines, a last line without newline at the end,
// and makes a guest that writes past its bound wait.
func TestOutput(t *testing.T) {
	out := newOutput(8, 64, func() { t.Error("a line too long") })
	mustWrite := func(s string) {
		if _, err := out.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite("a\nb")
	buf := make([]byte, 64)
	n, _ := out.Read(buf)
	if got := string(buf[:n]); got != "a\n" {
		t.Fatalf("read %q, want the whole line only", got)
	}
	wrote := make(chan struct{})
	go func() { mustWrite("cdefghij\n"); close(wrote) }()
	var all bytes.Buffer
	for all.Len() < len("bcdefghij\n") {
		n, err := out.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(buf[:n])
	}
	<-wrote
	if all.String() != "bcdefghij\n" {
		t.Errorf("read %q", all.String())
	}
	mustWrite("last")
	out.end()
	rest, err := io.ReadAll(out)
	if string(rest) != "last" || err != nil {
		t.Errorf("after end: %q, %v", rest, err)
	}
	if _, err := out.Write([]byte("x")); err == nil {
		t.Error("a write after end succeeded")
	}
}

// A line that runs past the line limit without a newline ends the
// instance, whether written at once or a byte at a time; one that ends
// within it is handed on.
func TestOutputEndlessLine(t *testing.T) {
	for _, pieces := range [][]string{{strings.Repeat("x", 10)}, strings.Split(strings.Repeat("x", 10), "")} {
		var tooLong atomic.Int32
		out := newOutput(64, 8, func() { tooLong.Add(1) })
		var err error
		for _, p := range pieces {
			if _, err = out.Write([]byte(p)); err != nil {
				break
			}
		}
		if !errors.Is(err, errLineTooLong) || tooLong.Load() != 1 {
			t.Errorf("%d pieces: write error %v and %d calls of tooLong, want errLineTooLong and 1", len(pieces), err, tooLong.Load())
		}
	}
	out := newOutput(64, 8, func() { t.Error("a line within the limit taken as too long") })
	for _, p := range []string{"1234", "5678\n", "abcdefgh\n"} {
		if _, err := out.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	_ = out.Close()
	if _, err := out.Write([]byte("dropped\n")); err != nil {
		t.Errorf("a write after the host closed stdout: %v", err)
	}
}

func TestNextLine(t *testing.T) {
	tests := []struct {
		data  string
		atEOF bool
		want  []string
	}{
		{"a\nb\r\nc", false, []string{"a", "b"}},
		{"a\nb\r\nc", true, []string{"a", "b", "c"}},
		{"abcdefgh\n", false, []string{"abcd", "efgh"}},
		{"abc\u00e9d", true, []string{"abc", "\u00e9d"}},
		{"\n\n", false, []string{"", ""}},
	}
	for _, tt := range tests {
		var got []string
		var w lineWriter
		w.max, w.emit = 4, func(l string) { got = append(got, l) }
		_, _ = w.Write([]byte(tt.data))
		if tt.atEOF {
			w.flush()
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.data, diff)
		}
	}
}

// FuzzLines feeds the stderr splitter what a module may write: the lines
// it hands on, rejoined, are what was written, none longer than the limit
// or holding a newline.
func FuzzLines(f *testing.F) {
	f.Add([]byte("a\nb\r\nc"), uint8(4), uint8(2))
	f.Add([]byte("\xff\xfe\u00e9\u00e9\n"), uint8(1), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, limit, split uint8) {
		max := int(limit%16) + utf8Max
		var got [][]byte
		var w lineWriter
		w.max = max
		w.emit = func(l string) {
			if len(l) > max || strings.Contains(l, "\n") {
				t.Fatalf("line %q: longer than %d or with a newline", l, max)
			}
			got = append(got, []byte(l))
		}
		cut := min(int(split), len(data))
		_, _ = w.Write(data[:cut])
		_, _ = w.Write(data[cut:])
		w.flush()
		joined := bytes.Join(got, nil)
		stripped := bytes.ReplaceAll(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), []byte("\n"), nil)
		if len(joined) > len(stripped) || len(joined)+bytes.Count(data, []byte("\r")) < len(stripped) {
			t.Fatalf("lines %q do not make up %q", got, data)
		}
	})
}

const utf8Max = 4

// FuzzOutput writes what a module may write to stdout, in two pieces: the
// host reads the same bytes, and, below the bound, only whole lines before
// the end.
func FuzzOutput(f *testing.F) {
	f.Add([]byte("a\nb\nc"), uint8(3))
	f.Add([]byte(strings.Repeat("x", 40)), uint8(7))
	f.Fuzz(func(t *testing.T, data []byte, split uint8) {
		const bound = 16
		out := newOutput(bound, 1<<20, func() { t.Error("a line too long") })
		cut := min(int(split), len(data))
		read := make(chan []byte)
		go func() {
			all, _ := io.ReadAll(out)
			read <- all
		}()
		_, _ = out.Write(data[:cut])
		_, _ = out.Write(data[cut:])
		if len(data) < bound {
			out.mu.Lock()
			pending := len(out.partial)
			out.mu.Unlock()
			if want := len(data) - (bytes.LastIndexByte(data, '\n') + 1); pending != want {
				t.Fatalf("%d bytes held back before the end, want the %d after the last newline", pending, want)
			}
		}
		out.end()
		if all := <-read; !bytes.Equal(all, data) {
			t.Fatalf("read %q, wrote %q", all, data)
		}
	})
}
