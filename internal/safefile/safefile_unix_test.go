//go:build unix

package safefile

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// hangBound detects a hang, not a speed: an open that waits for a writer
// never returns, while one that does not returns in microseconds. It is
// generous because the machine may be loaded.
const hangBound = 30 * time.Second

func mkfifo(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "escouade-plugin.json")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	return path
}

// returnsAtOnce runs read and fails if it does not return.
func returnsAtOnce(t *testing.T, read func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- read() }()
	select {
	case err := <-done:
		return err
	case <-time.After(hangBound):
		t.Fatal("the read waits for a writer of the named pipe")
		return nil
	}
}

func TestReadRefusesANamedPipeWithNoWriter(t *testing.T) {
	path := mkfifo(t)
	err := returnsAtOnce(t, func() error {
		_, err := Read(path, "escouade-plugin.json", MiB)
		return err
	})
	assertRefusal(t, err, ErrNotRegular, "escouade-plugin.json is a named pipe; the host reads only regular files")
}

// The open itself does not block: a named pipe swapped in after the check
// by name is opened without waiting, then refused by its descriptor.
func TestOpenOfANamedPipeSwappedInDoesNotBlock(t *testing.T) {
	path := mkfifo(t)
	regular := filepath.Join(t.TempDir(), "regular")
	if err := os.WriteFile(regular, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := returnsAtOnce(t, func() error {
		_, err := open("escouade-plugin.json", MiB,
			func() (fs.FileInfo, error) { return os.Stat(regular) },
			func() (*os.File, error) { return os.OpenFile(path, os.O_RDONLY|openFlags, 0) })
		return err
	})
	assertRefusal(t, err, ErrNotRegular, "escouade-plugin.json is a named pipe; the host reads only regular files")
}

func TestReadRefusesASocket(t *testing.T) {
	dir, err := os.MkdirTemp("", "sock") // short: a socket's path is limited to about 100 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "s")
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Skip(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		t.Skip(err)
	}
	_, err = Read(path, "plugin.wasm", MiB)
	assertRefusal(t, err, ErrNotRegular, "plugin.wasm is a socket; the host reads only regular files")
}
