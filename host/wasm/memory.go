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

func (a memoryAllocator) Allocate(capacity, _ uint64) engine.LinearMemory {
	return &linearMemory{a: a, buf: make([]byte, 0, min(capacity, a.limit))}
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
