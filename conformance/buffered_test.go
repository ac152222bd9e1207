package conformance

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
)

// A program that answers initialize, then keeps every later answer in a
// buffer it writes out only with the answer to shutdown (a C module that
// forgot fflush): one row fails, ids, naming the missing flush, and the
// rows it broke follow from it, never an ids row about floats.
func TestABufferedStdoutIsOneRowNamingTheFlush(t *testing.T) {
	dir := pluginDir(t, "", "")
	var held []string
	plugin := fakePlugin{answer: func(line []byte) ([]string, bool) {
		out, exit := wellBehaved(line)
		switch {
		case strings.Contains(string(line), methodInitialize):
			return out, exit
		case exit:
			return append(held, out...), true
		}
		held = append(held, out...)
		return nil, false
	}}
	synctest.Test(t, func(t *testing.T) {
		r := Run(context.Background(), dir, Options{Transports: fakeTransports(plugin)})
		want := []string{
			"manifest pass", "activation pass", "start pass", "initialize pass", "ids fail", "batch skip",
			"notification-batch pass", "concurrent skip", "unknown-method skip", "delay skip",
			"host-requests pass", "memory pass", "shutdown pass", "children pass", "stdout pass",
		}
		if diff := cmp.Diff(want, rowStatuses(r)); diff != "" {
			logReport(t, r)
			t.Fatalf("rows (-want +got):\n%s", diff)
		}
		res, _ := r.Result(CheckIDs)
		if !strings.Contains(res.Got, "its answer came only with the answer to shutdown") || res.Fix != flushFix {
			t.Errorf("ids says %q, fix %q", res.Got, res.Fix)
		}
		if strings.Contains(res.Fix, "float") {
			t.Errorf("the fix speaks of floats: %q", res.Fix)
		}
		batch, _ := r.Result(CheckBatch)
		if batch.FollowsFrom != CheckIDs {
			t.Errorf("batch follows from %q, want ids", batch.FollowsFrom)
		}
	})
}
