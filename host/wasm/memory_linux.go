//go:build linux

package wasm

import "golang.org/x/sys/unix"

// adviseHuge asks the system to back a reservation with huge pages where
// it can (transparent huge pages, in their usual "madvise" mode): a page
// fault then maps 2 MiB, not 4 KiB. A Go module's start touches a few MiB
// of its memory (its runtime's heap, its data), and a fault per 4 KiB cost
// it about 10 ms on a virtual machine
// (docs/RATIONALE.md#what-happens-past-64-mb-of-memory). The memory
// counted against the limit does not change: it is the linear memory's
// size; resident memory grows by 2 MiB steps, at most 2 MiB past what the
// guest touched. Where the system compacts memory for advised regions (its
// usual "defrag" setting), a first touch may wait for that, within the
// guest's own turn (docs/RATIONALE.md weighs it). A system without huge
// pages refuses the advice, and nothing changes.
func adviseHuge(b []byte) { _ = unix.Madvise(b, unix.MADV_HUGEPAGE) }
