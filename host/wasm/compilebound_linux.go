package wasm

import "syscall"

// limitMemory bounds the data the compile child may map (RLIMIT_DATA:
// its heap, the compiler's tables, the machine code): past it an
// allocation fails, and the child ends out of memory. The address space
// (RLIMIT_AS) is no bound to use: a Go binary reserves more than a GiB
// of it before it allocates anything.
func limitMemory(bytes uint64) {
	_ = syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: bytes, Max: bytes})
}

// memoryBounded says the compile child's memory is a hard bound here.
const memoryBounded = true

// childAttr kills the compile child when the host dies (SIGKILL, a
// crash): otherwise it would go on compiling for up to its 60 s, a
// process the host left. The thread that starts it waits for it, so the
// signal cannot come from that thread's end while the host lives.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
