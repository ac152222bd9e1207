//go:build linux || darwin

package wasm

import "golang.org/x/sys/unix"

// reserve maps size bytes of private, zero address space that the system
// commits page by page as they are touched (MAP_NORESERVE: no swap is
// set aside for the untouched rest), or returns nil when it cannot.
func reserve(size uint64) []byte {
	if size == 0 || size > 1<<32 {
		return nil
	}
	b, err := unix.Mmap(-1, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON|unix.MAP_NORESERVE)
	if err != nil {
		return nil
	}
	adviseHuge(b)
	return b
}

func release(b []byte) { _ = unix.Munmap(b) }
