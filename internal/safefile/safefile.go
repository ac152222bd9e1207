// Package safefile is the one way the host reads a file it did not write:
// every file of a plugin's folder (the manifest, plugin.wasm, version.json,
// the JS bundle, the root JSON files, files/read, the bench's scenarios)
// and the host's own files under the home, which a plugin granted a
// folder might reach.
//
// A plugin's folder is written by whoever wrote the plugin, so each read
// holds three rules, each refusal a sentence that names the file:
//
//   - the open never waits: a named pipe with no writer opens at once
//     (O_NONBLOCK on Unix), then is refused;
//   - only a regular file is read: the file is checked before the open
//     (so a device is not even opened) and again on the opened descriptor
//     (so one swapped in meanwhile is caught): "plugin.wasm is a named
//     pipe; the host reads only regular files";
//   - the size is capped before reading, from the opened descriptor's
//     size (a sparse 1 GiB file is refused without a byte read), and while
//     reading, by a LimitReader, so a file that grows is cut at the cap:
//     "plugin.wasm is 1.0 GiB; the limit is 64 MiB", "plugin.wasm grew
//     while it was read, past the limit of 64 MiB".
package safefile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
)

// The kinds of refusal, for errors.Is.
var (
	// ErrNotRegular: the file is a named pipe, a device, a directory, a
	// socket, or anything but a regular file.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file is larger than its limit, or grew past it
	// while it was read.
	ErrTooLarge = errors.New("past its size limit")
)

// Error is a file refused. errors.Is(err, ErrNotRegular), ErrTooLarge or
// fs.ErrNotExist tells which refusal it is.
type Error struct {
	// Name is the file as the sentence names it, such as "plugin.wasm".
	Name string
	// Kind is ErrNotRegular, ErrTooLarge, or nil when the system refused.
	Kind error
	// What the file is, for ErrNotRegular: "a named pipe", "a device"...
	What string
	// Size and Limit, for ErrTooLarge. Grew says the size was within the
	// limit when checked and the file grew past it while it was read; Size
	// is then what was read, one byte past the limit.
	Size, Limit int64
	Grew        bool
	// Err is the system's error, for Kind nil.
	Err error
}

func (e *Error) Error() string {
	switch e.Kind {
	case ErrNotRegular:
		return fmt.Sprintf("%s is %s; the host reads only regular files", e.Name, e.What)
	case ErrTooLarge:
		if e.Grew {
			return fmt.Sprintf("%s grew while it was read, past the limit of %s", e.Name, LimitText(e.Limit))
		}
		return fmt.Sprintf("%s is %s; the limit is %s", e.Name, SizeText(e.Size, e.Limit), LimitText(e.Limit))
	}
	return fmt.Sprintf("%s cannot be read: %v", e.Name, e.Err)
}

// Unwrap gives the kind and the system's error, so errors.Is sees both.
func (e *Error) Unwrap() []error {
	var out []error
	for _, err := range []error{e.Kind, e.Err} {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// File is a regular file opened for reading, within its limit when
// opened.
type File struct {
	f     *os.File
	info  fs.FileInfo
	name  string
	limit int64
}

// Read reads the file at path, at most limit bytes; name is the file as
// the refusals name it.
func Read(path, name string, limit int64) ([]byte, error) {
	f, err := Open(path, name, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadAll()
}

// ReadIn is Read of the file path under root, which no link can lead out
// of.
func ReadIn(root *os.Root, path, name string, limit int64) ([]byte, error) {
	f, err := OpenIn(root, path, name, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadAll()
}

// SHA256 is the SHA-256, in hex, of the file at path, streamed in small
// pieces with Open's checks: the one digest of a plugin's file the
// consent check and the module transport compare.
func SHA256(path, name string, limit int64) (string, error) {
	f, err := Open(path, name, limit)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := f.WriteTo(h); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Open opens the file at path for reading, without blocking, and checks
// that it is a regular file of at most limit bytes.
func Open(path, name string, limit int64) (*File, error) {
	return open(name, limit, func() (fs.FileInfo, error) { return os.Stat(path) },
		func() (*os.File, error) { return os.OpenFile(path, os.O_RDONLY|openFlags, 0) })
}

// OpenIn is Open of the file path under root.
func OpenIn(root *os.Root, path, name string, limit int64) (*File, error) {
	return open(name, limit, func() (fs.FileInfo, error) { return root.Stat(path) },
		func() (*os.File, error) { return root.OpenFile(path, os.O_RDONLY|openFlags, 0) })
}

// open checks the file named, opens it and checks the opened descriptor.
func open(name string, limit int64, stat func() (fs.FileInfo, error), openFile func() (*os.File, error)) (*File, error) {
	info, err := stat()
	if err != nil {
		return nil, systemError(name, err)
	}
	// Checked before opening, so a device is never opened at all.
	if err := check(name, info, limit); err != nil {
		return nil, err
	}
	f, err := openFile()
	if err != nil {
		return nil, systemError(name, err)
	}
	// Checked again on what was opened: the name may lead elsewhere now.
	if info, err = f.Stat(); err != nil {
		f.Close()
		return nil, systemError(name, err)
	}
	if err := check(name, info, limit); err != nil {
		f.Close()
		return nil, err
	}
	return &File{f: f, info: info, name: name, limit: limit}, nil
}

// check refuses anything but a regular file of at most limit bytes.
func check(name string, info fs.FileInfo, limit int64) error {
	if !info.Mode().IsRegular() {
		return &Error{Name: name, Kind: ErrNotRegular, What: describe(info.Mode())}
	}
	if info.Size() > limit {
		return &Error{Name: name, Kind: ErrTooLarge, Size: info.Size(), Limit: limit}
	}
	return nil
}

// Describe says what a file that is not regular is: "a named pipe", "a
// device"…
func Describe(mode fs.FileMode) string { return describe(mode) }

// describe says what a file that is not regular is.
func describe(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeDevice != 0:
		return "a device"
	case mode&fs.ModeSymlink != 0:
		return "a link"
	}
	return "not a regular file"
}

// systemError is the system's refusal, without the path it repeats.
func systemError(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &Error{Name: name, Err: err}
}

// Info is the opened file's information, as fstat gave it.
func (f *File) Info() fs.FileInfo { return f.info }

// ReadAll reads the whole file, never more than its limit: a file that
// grew past the limit since it was opened is refused.
func (f *File) ReadAll() ([]byte, error) {
	// Room for the whole file and the read that finds its end, so a file
	// of the size fstat said is read without growing the buffer. make,
	// unlike bytes.Buffer's Grow, does not zero memory fresh from the
	// system before the read writes over it (a 4 MB module's read was
	// half zeroing).
	size := min(f.info.Size(), f.limit)
	buf := make([]byte, 0, size+bytes.MinRead)
	if size >= splitReadMin && f.readSplit(buf[:size]) {
		buf = buf[:size]
		if _, err := f.f.Seek(size, io.SeekStart); err != nil {
			return nil, systemError(f.name, err)
		}
	}
	r := io.LimitReader(f.f, f.limit+1-int64(len(buf)))
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // a file that grew: room for more
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, systemError(f.name, err)
		}
	}
	if int64(len(buf)) > f.limit {
		return nil, &Error{Name: f.name, Kind: ErrTooLarge, Size: int64(len(buf)), Limit: f.limit, Grew: true}
	}
	return buf, nil
}

// splitReadMin is the size from which ReadAll reads a file in two halves
// at once.
const splitReadMin = 1 << 20

// readSplit fills buf from the start of the file in two halves read at
// once, each then touched page by page, and reports whether both were
// read whole; false (the file shrank, a read failed) leaves the caller to
// read it again from the start, one read after the other.
//
// Why: on a virtual machine the first touches of fresh memory are what a
// large read costs (a fault per page, then a first access per page from
// the program), about 35 ms for a 4 MB module where reading it again
// takes 3 ms; on Linux and macOS two cores halve it, and the touch makes
// the caller's next pass over the bytes (a hash) find them ready
// (docs/RATIONALE.md#why-is-a-large-file-read-in-two-halves). On Windows
// Go serializes reads at offsets of one file, so only the touches run at
// once there.
func (f *File) readSplit(buf []byte) bool {
	half := len(buf) / 2
	var second bool
	var secondSum byte
	var wg sync.WaitGroup
	wg.Go(func() { second, secondSum = readAtTouching(f.f, buf[half:], int64(half)) })
	first, firstSum := readAtTouching(f.f, buf[:half], 0)
	wg.Wait()
	touched.Store(uint32(firstSum + secondSum))
	if first && second {
		splitReads.Add(1)
	}
	return first && second
}

// splitReads counts the reads readSplit made whole, for the tests to see
// which way a file was read.
var splitReads atomic.Int64

// readAtTouching fills b from offset off of r, then reads one byte of
// each of its pages (their sum), and reports whether b was filled.
func readAtTouching(r io.ReaderAt, b []byte, off int64) (filled bool, sum byte) {
	if n, _ := r.ReadAt(b, off); n < len(b) {
		return false, 0
	}
	for i := 0; i < len(b); i += pageSize {
		sum += b[i]
	}
	return true, sum
}

// pageSize is the smallest page of the systems the host runs on.
const pageSize = 4096

// touched keeps readAtTouching's loads from being dropped as unused;
// atomic, since reads of two files may end at once.
var touched atomic.Uint32

// WriteTo streams the file to w, never more than its limit, for a reader
// that need not hold it (a digest): a file that grew past the limit since
// it was opened is refused as ReadAll refuses it.
func (f *File) WriteTo(w io.Writer) (int64, error) {
	n, err := io.Copy(w, io.LimitReader(f.f, f.limit+1))
	if err != nil {
		return n, systemError(f.name, err)
	}
	if n > f.limit {
		return n, &Error{Name: f.name, Kind: ErrTooLarge, Size: n, Limit: f.limit, Grew: true}
	}
	return n, nil
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// Binary units, as the limits are written.
const (
	KiB = 1 << 10
	MiB = 1 << 20
	GiB = 1 << 30
)

var units = []struct {
	size int64
	name string
}{{GiB, "GiB"}, {MiB, "MiB"}, {KiB, "KiB"}}

// LimitText writes a limit as it is chosen: a whole number of units
// ("64 MiB", "256 KiB"), or bytes when it is not one.
func LimitText(n int64) string {
	for _, u := range units {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// SizeText writes a file's size with one decimal ("1.0 GiB"); in bytes
// when it is small, or when one decimal would read as the limit itself
// ("64.0 MiB" for a file one byte past 64 MiB).
func SizeText(size, limit int64) string {
	for _, u := range units {
		if size >= u.size {
			text := fmt.Sprintf("%.1f %s", float64(size)/float64(u.size), u.name)
			if text == fmt.Sprintf("%.1f %s", float64(limit)/float64(u.size), u.name) {
				break
			}
			return text
		}
	}
	return fmt.Sprintf("%d bytes", size)
}
