package jsrt

import (
	"io"
	"io/fs"
	"slices"
	"time"
)

// memFS is a flat read-only folder of files in memory: the /bundle the
// engine's instance mounts. It is small on purpose (no subfolders).
type memFS map[string]*memFile

type memFile struct{ data []byte }

func (m memFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return &memDir{fs: m}, nil
	}
	f, ok := m[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &openFile{name: name, f: f}, nil
}

// ReadFile lets fs.ReadFile skip the copy through Read.
func (m memFS) ReadFile(name string) ([]byte, error) {
	f, ok := m[name]
	if !ok {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: fs.ErrNotExist}
	}
	return slices.Clone(f.data), nil
}

type fileInfo struct {
	name string
	size int64
	dir  bool
}

func (i fileInfo) Name() string { return i.name }
func (i fileInfo) Size() int64  { return i.size }
func (i fileInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i fileInfo) ModTime() time.Time         { return time.Time{} }
func (i fileInfo) IsDir() bool                { return i.dir }
func (i fileInfo) Sys() any                   { return nil }
func (i fileInfo) Info() (fs.FileInfo, error) { return i, nil }
func (i fileInfo) Type() fs.FileMode          { return i.Mode().Type() }

type openFile struct {
	name string
	f    *memFile
	off  int64
}

func (o *openFile) Stat() (fs.FileInfo, error) {
	return fileInfo{name: o.name, size: int64(len(o.f.data))}, nil
}

func (o *openFile) Read(p []byte) (int, error) {
	if o.off >= int64(len(o.f.data)) {
		return 0, io.EOF
	}
	n := copy(p, o.f.data[o.off:])
	o.off += int64(n)
	return n, nil
}

// ReadAt and Seek let wazero read with pread and lseek.
func (o *openFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(o.f.data)) {
		return 0, io.EOF
	}
	n := copy(p, o.f.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (o *openFile) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += o.off
	case io.SeekEnd:
		off += int64(len(o.f.data))
	}
	if off < 0 {
		return 0, &fs.PathError{Op: "seek", Path: o.name, Err: fs.ErrInvalid}
	}
	o.off = off
	return off, nil
}

func (o *openFile) Close() error { return nil }

type memDir struct {
	fs   memFS
	read bool
}

func (d *memDir) Stat() (fs.FileInfo, error) { return fileInfo{name: ".", dir: true}, nil }
func (d *memDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: ".", Err: fs.ErrInvalid}
}
func (d *memDir) Close() error { return nil }

func (d *memDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if d.read {
		if n > 0 {
			return nil, io.EOF
		}
		return nil, nil
	}
	d.read = true
	names := make([]string, 0, len(d.fs))
	for name := range d.fs {
		names = append(names, name)
	}
	slices.Sort(names)
	out := make([]fs.DirEntry, len(names))
	for i, name := range names {
		out[i] = fileInfo{name: name, size: int64(len(d.fs[name].data))}
	}
	return out, nil
}
