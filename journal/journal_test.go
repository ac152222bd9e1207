package journal

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWriteFormatsLines(t *testing.T) {
	tests := []struct {
		name string
		tag  string
		text string
		want []string
	}{
		{"one line", TagStderr, "boom", []string{line("stderr", "boom")}},
		{"log level tag", LogTag("warn"), "disk low", []string{line("log.warn", "disk low")}},
		{"lines split under one tag", TagCrash, "exit 2\nlast words", []string{line("crash", "exit 2"), line("crash", "last words")}},
		{"final break adds no line", TagStderr, "done\n", []string{line("stderr", "done")}},
		{"carriage returns dropped", TagStderr, "a\r\nb\r\n", []string{line("stderr", "a"), line("stderr", "b")}},
		{"blank line kept", TagStderr, "a\n\nb", []string{line("stderr", "a"), line("stderr", ""), line("stderr", "b")}},
		{"empty text", TagReady, "", []string{line("ready", "")}},
		{"not UTF-8 replaced", TagStderr, "bad \xff byte", []string{line("stderr", "bad \uFFFD byte")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, home := openTest(t, Options{}, hooks{})
			j.Write(tt.tag, tt.text)
			if diff := cmp.Diff(tt.want, mustTail(t, j, 100)); diff != "" {
				t.Errorf("Tail (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, fileLines(t, journalFile(home))); diff != "" {
				t.Errorf("file (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTags(t *testing.T) {
	got := []string{TagStart, TagReady, TagStop, TagCrash, TagStderr, TagSecret, TagRefused,
		TagTimeout, TagLate, TagDropped, TagMemory, TagWASM, TagNet, LogTag("debug")}
	want := []string{"start", "ready", "stop", "crash", "stderr", "secret", "refused",
		"timeout", "late", "dropped", "memory", "wasm", "net", "log.debug"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
}

func TestPath(t *testing.T) {
	got := Path(filepath.FromSlash("/home/u/.escouade"), "dev.example.hello")
	want := filepath.FromSlash("/home/u/.escouade/plugin-logs/dev.example.hello.log")
	if got != want {
		t.Errorf("Path = %q, want %q", got, want)
	}
}

func TestOpenRefusesIDsThatAreNotOneFile(t *testing.T) {
	for _, id := range []string{"", "../escape", "a/b", `a\b`, ".hidden", "c:x", "a\x00b"} {
		t.Run(id, func(t *testing.T) {
			home := t.TempDir()
			if j, err := Open(home, id, Options{}); err == nil {
				j.Close()
				t.Fatalf("Open(%q) succeeded", id)
			}
			if _, err := ReadTail(home, id, 1); err == nil {
				t.Fatalf("ReadTail(%q) succeeded", id)
			}
		})
	}
}

func TestOpenCreatesPrivateDirAndFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no Unix permission bits")
	}
	_, home := openTest(t, Options{}, hooks{})
	for path, want := range map[string]os.FileMode{
		filepath.Join(home, "plugin-logs"): dirMode | os.ModeDir,
		journalFile(home):                  fileMode,
	} {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode(); got != want {
			t.Errorf("mode of %s = %v, want %v", filepath.Base(path), got, want)
		}
	}
}

func TestOpenAppends(t *testing.T) {
	j, home := openTest(t, Options{}, hooks{})
	j.Write(TagStart, "first run")
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(home, testID, Options{Now: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	again.Write(TagStart, "second run")
	want := []string{line("start", "first run"), line("start", "second run")}
	if diff := cmp.Diff(want, mustTail(t, again, 10)); diff != "" {
		t.Errorf("Tail (-want +got):\n%s", diff)
	}
}

func TestCloseWritesQueuedLinesAndIgnoresLaterWrites(t *testing.T) {
	j, home := openTest(t, Options{}, hooks{})
	j.Write(TagStop, "closing")
	if err := j.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	j.Write(TagStderr, "too late")
	if err := j.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	got, err := ReadTail(home, testID, 10)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{line("stop", "closing")}, got); diff != "" {
		t.Errorf("ReadTail (-want +got):\n%s", diff)
	}
}

func TestOpenRefusesIDTooLong(t *testing.T) {
	home := t.TempDir()
	long := "dev." + strings.Repeat("a", 250)
	if _, err := Open(home, long, Options{}); err == nil || !strings.Contains(err.Error(), "too long") {
		t.Errorf("Open of a %d-byte id = %v, want too long", len(long), err)
	}
	ok := "dev." + strings.Repeat("a", 249-4)
	j, err := Open(home, ok, Options{})
	if err != nil {
		t.Fatalf("Open of a %d-byte id: %v", len(ok), err)
	}
	j.Close()
}
