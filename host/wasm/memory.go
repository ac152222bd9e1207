package wasm

import "github.com/escouade-dev/escouade-plugin/host/wasm/engine"

// memoryAllocator gives an instance its linear memory and refuses to grow
// it past limit bytes. wazero's own page limit fails such a memory.grow
// without a word; the allocator sees it, so the instance ends as out of
// memory (docs/protocol.md#limits) rather than with whatever the guest makes of a
// failed grow (a Go runtime's fatal error, a C malloc's NULL).
type memoryAllocator struct {
	limit   uint64
	refused func(size uint64)
}

// Allocate reserves the whole limit of address space where the system
// allows (memory_mmap.go): the memory then grows in place, where a slice
// of the Go heap is copied at every grow (a Go module's start grows its
// memory a dozen times, about 40 ms of copies). Untouched pages of the
// reservation cost no memory. Elsewhere the memory is a Go slice.
func (a memoryAllocator) Allocate(capacity, maxBytes uint64) engine.LinearMemory {
	size := a.limit
	if maxBytes > 0 {
		size = min(size, maxBytes)
	}
	if buf := reserve(size); buf != nil {
		return &reservedMemory{a: a, buf: buf}
	}
	return &linearMemory{a: a, buf: make([]byte, 0, min(capacity, a.limit))}
}

// reservedMemory is a linear memory in address space reserved up to its
// limit: growing it hands out more of the reservation, zero as the system
// maps it.
type reservedMemory struct {
	a   memoryAllocator
	buf []byte // the whole reservation
}

func (m *reservedMemory) Reallocate(size uint64) []byte {
	if size > m.a.limit {
		m.a.refused(size)
		return nil
	}
	if m.buf == nil || size > uint64(len(m.buf)) {
		return nil // past the module's own maximum, or freed
	}
	return m.buf[:size]
}

// Free gives the reservation back; the runtime calls it once no call
// uses the memory any more.
func (m *reservedMemory) Free() {
	if m.buf != nil {
		release(m.buf)
		m.buf = nil
	}
}

type linearMemory struct {
	a   memoryAllocator
	buf []byte
}

// Reallocate grows the memory to size bytes; nil refuses. Memory never
// shrinks, so the bytes past len(buf) were never handed out and are zero.
func (m *linearMemory) Reallocate(size uint64) []byte {
	if size > m.a.limit {
		m.a.refused(size)
		return nil
	}
	if size <= uint64(cap(m.buf)) {
		m.buf = m.buf[:size]
		return m.buf
	}
	grown := make([]byte, size, min(size+size/4, m.a.limit))
	copy(grown, m.buf)
	m.buf = grown
	return grown
}

func (m *linearMemory) Free() { m.buf = nil }
