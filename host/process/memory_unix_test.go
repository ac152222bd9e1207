//go:build unix

package process

import (
	"context"
	"strconv"
	"testing"
)

func TestMemoryCountsTheChildTree(t *testing.T) {
	const eachMiB = 32
	p, lines := startWithSide(t, fakeSpec(t, "alloc", strconv.Itoa(eachMiB), "1"))
	for range 2 { // the program and its child
		if got := nextLine(t, lines); got != "ready" {
			t.Fatalf("allocator said %q, want ready", got)
		}
	}
	total, err := p.group.memoryWithin(0) // Memory may use a table read before the child started
	if err != nil {
		t.Fatal(err)
	}
	alone := residentBytes(t, p.PID())
	if total < 2*eachMiB<<20 || total-alone < eachMiB<<20 {
		t.Errorf("Memory = %d MiB with the program alone at %d MiB; want the program and its child, each over %d MiB",
			total>>20, alone>>20, eachMiB)
	}
	stop(t, p, context.Background(), 0)
	if got, err := p.Memory(); got != 0 || err != nil {
		t.Errorf("Memory after Stop = %d, %v; want 0, nil", got, err)
	}
}

func residentBytes(t *testing.T, pid int) uint64 {
	t.Helper()
	procs, err := listProcesses()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		if p.PID == pid {
			return p.RSS
		}
	}
	t.Fatalf("process %d not listed", pid)
	return 0
}
