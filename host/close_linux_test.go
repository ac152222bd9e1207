package host

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestCloseStopsEveryProgramAndWhatItStarted(t *testing.T) {
	h, p := startHost(t, "ok", Options{})
	var child int
	json.Unmarshal(mustResult(t, call(t, p, "test/spawn", nil)), &child)
	_, deaf := addPlugin(t, h, "deaf")
	mustResult(t, call(t, deaf, "test/echo", []int{1}))
	start := time.Now()
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Logf("closed in %v", time.Since(start))
	eventually(t, fmt.Sprintf("child %d of the plugin gone", child), func() bool { return !processRuns(child) })
	for _, pl := range []*Plugin{p, deaf} {
		if st := pl.Status(); st.State != StateStopped || st.PID != 0 {
			t.Errorf("%s after Close: %+v", pl.ID(), st)
		}
	}
}

// processRuns reports whether pid runs: a zombie (killed, not yet reaped by
// whoever inherited it) does not.
func processRuns(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(rest, "Z")
}
