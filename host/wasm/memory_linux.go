//go:build linux

package wasm

import "golang.org/x/sys/unix"

// adviseHuge asks the system to back a reservation with huge pages where
// it can (transparent huge pages, in their usual "madvise" mode): a page
// fault then maps 2 MiB, not 4 KiB. A Go module's start touches a few MiB
// of its memory (its runtime's heap, its data), and a fault per 4 KiB cost
// it about 10 ms on a virtual machine (docs/PERFORMANCE.md). The memory
// counted against the limit does not change: it is the linear memory's
// size; untouched huge pages are still not mapped. A system without them
// refuses the advice, and nothing changes.
func adviseHuge(b []byte) { _ = unix.Madvise(b, unix.MADV_HUGEPAGE) }
