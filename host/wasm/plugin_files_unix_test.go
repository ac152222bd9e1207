//go:build unix

package wasm

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// plugin.wasm or version.json that is a named pipe, a link to a device or
// a sparse file past its limit is refused at launch and at precompile with
// a sentence saying what it is, without waiting on it or reading it.
func TestModuleFilesThatAreNotSmallFiles(t *testing.T) {
	tr := newTransport(t, Options{})
	tests := []struct {
		name, file string
		make       func(path string) error
		want       string
	}{
		{"fifo module", ModuleFile, func(p string) error { return syscall.Mkfifo(p, 0o644) },
			"plugin.wasm is a named pipe; the host reads only regular files"},
		{"device module", ModuleFile, func(p string) error { return os.Symlink("/dev/zero", p) },
			"plugin.wasm is a device; the host reads only regular files"},
		{"sparse module", ModuleFile, func(p string) error { return sparse(p, 1<<30) },
			"plugin.wasm is 1.0 GiB; the limit is 64 MiB"},
		{"device version", VersionFile, func(p string) error { return os.Symlink("/dev/zero", p) },
			"version.json is a device; the host reads only regular files"},
		{"fifo version", VersionFile, func(p string) error { return syscall.Mkfifo(p, 0o644) },
			"version.json is a named pipe; the host reads only regular files"},
		{"sparse version", VersionFile, func(p string) error { return sparse(p, 1<<20) },
			"version.json is 1.0 MiB; the limit is 64 KiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := pluginDir(t, exitsWith7, nil)
			path := filepath.Join(m.Dir, tt.file)
			os.Remove(path)
			if err := tt.make(path); err != nil {
				t.Skip(err)
			}
			if _, err := tr.Launch(t.Context(), specOf(m)); err == nil || err.Error() != tt.want {
				t.Errorf("Launch: %v, want %q", err, tt.want)
			}
			if err := tr.Precompile(t.Context(), m, nil); err == nil || err.Error() != tt.want {
				t.Errorf("Precompile: %v, want %q", err, tt.want)
			}
		})
	}
}

func sparse(path string, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Truncate(size)
}
