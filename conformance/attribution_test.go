package conformance

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/google/go-cmp/cmp"
)

// rowStatuses lists each row as "check status", in order.
func rowStatuses(r *Report) []string {
	out := make([]string, len(r.Results))
	for i, res := range r.Results {
		out[i] = res.Check + " " + string(res.Status)
	}
	return out
}

// TestCrashIsCountedOnce: a program that exits during a check fails that
// check, with its exit and the crash's fix; every later row is skipped as
// following from the crash, none fails with a broken pipe.
func TestCrashIsCountedOnce(t *testing.T) {
	dir := pluginDir(t, "", `{"scenarios":[{"name":"s","call":"tickets/x"}]}`)
	plugin := fakePlugin{answer: func(line []byte) ([]string, bool) {
		if strings.Contains(string(line), methodConcurrent) {
			return nil, true // ends without answering
		}
		return wellBehaved(line)
	}}
	synctest.Test(t, func(t *testing.T) {
		r := Run(context.Background(), dir, Options{Transports: fakeTransports(plugin)})
		want := []string{
			"manifest pass", "activation pass", "start pass", "initialize pass", "ids pass", "batch pass",
			"notification-batch pass", "concurrent fail", "unknown-method skip", "delay skip",
			"scenario: s skip", "host-requests skip", "memory skip", "shutdown skip", "children skip", "stdout pass",
		}
		if diff := cmp.Diff(want, rowStatuses(r)); diff != "" {
			logReport(t, r)
			t.Fatalf("rows (-want +got):\n%s", diff)
		}
		res, _ := r.Result(CheckConcurrent)
		if !strings.Contains(res.Got, "the program ended (exit code 0) during this check, before shutdown") || res.Fix != crashFix {
			t.Errorf("the crash row says %q, fix %q", res.Got, res.Fix)
		}
		for _, res := range r.Results[indexOf(r, CheckConcurrent)+1:] {
			if res.Status == Skip && res.Detail != "the program crashed during concurrent" {
				t.Errorf("row %s: detail %q, want the crash named", res.Check, res.Detail)
			}
			if strings.Contains(res.Got, "broken pipe") {
				t.Errorf("row %s blames a broken pipe: %q", res.Check, res.Got)
			}
		}
	})
}

// TestAnEndSeenLateIsStillTheProgramsEnd: a program whose stdin closed
// as it exited, its end seen a moment later, is said to have ended: the
// next call's refused write is not blamed on the pipe.
func TestAnEndSeenLateIsStillTheProgramsEnd(t *testing.T) {
	dir := pluginDir(t, "", "")
	plugin := fakePlugin{endLag: 100 * time.Millisecond, answer: func(line []byte) ([]string, bool) {
		out, exit := wellBehaved(line)
		return out, exit || strings.Contains(string(line), methodUnknown)
	}}
	synctest.Test(t, func(t *testing.T) {
		r := Run(context.Background(), dir, Options{Transports: fakeTransports(plugin)})
		failed := failures(r)
		if len(failed) != 1 {
			logReport(t, r)
			t.Fatalf("failed rows %v, want one", failed)
		}
		res, _ := r.Result(failed[0])
		if !strings.Contains(res.Got, "the program ended") || strings.Contains(res.Got, "could not write") {
			t.Errorf("row %s: got %q, want the program's end", res.Check, res.Got)
		}
	})
}

func indexOf(r *Report, check string) int {
	for i, res := range r.Results {
		if res.Check == check {
			return i
		}
	}
	return -1
}

// TestExitAfterAnsweringIsACrash: a program that answers a check, then
// exits, fails that check: ending is the fault, even though the answer
// was right.
func TestExitAfterAnsweringIsACrash(t *testing.T) {
	dir := pluginDir(t, "", "")
	plugin := fakePlugin{answer: func(line []byte) ([]string, bool) {
		out, exit := wellBehaved(line)
		return out, exit || strings.Contains(string(line), methodUnknown)
	}}
	synctest.Test(t, func(t *testing.T) {
		r := Run(context.Background(), dir, Options{Transports: fakeTransports(plugin)})
		failed := failures(r)
		if len(failed) != 1 {
			logReport(t, r)
			t.Fatalf("failed rows %v, want one", failed)
		}
		res, _ := r.Result(failed[0])
		if !strings.Contains(res.Got, "the program ended") || res.Expected != "the program running until shutdown" {
			t.Errorf("row %s: expected %q, got %q", res.Check, res.Expected, res.Got)
		}
	})
}

// TestJunkInTheQuietWindow: a line that is not JSON, written while the
// bench listens for silence, is stdout's fault; the notification-batch row
// follows from it rather than failing too.
func TestJunkInTheQuietWindow(t *testing.T) {
	dir := pluginDir(t, "", "")
	plugin := fakePlugin{answer: func(line []byte) ([]string, bool) {
		if strings.Count(string(line), methodEvent) == 2 {
			return []string{"got two events"}, false
		}
		return wellBehaved(line)
	}}
	synctest.Test(t, func(t *testing.T) {
		r := Run(context.Background(), dir, Options{Transports: fakeTransports(plugin)})
		if diff := cmp.Diff([]string{CheckStdout}, failures(r)); diff != "" {
			logReport(t, r)
			t.Fatalf("failed rows (-want +got):\n%s", diff)
		}
		res, _ := r.Result(CheckNotificationBatch)
		if res.Status != Skip || res.FollowsFrom != CheckStdout {
			t.Errorf("notification-batch row %+v, want skipped, following from stdout", res)
		}
	})
}

// TestEarlyStopSaysWhatHappened: when wrong ids make the bench stop before
// the delay, the row says how long it really waited, not the delay.
func TestEarlyStopSaysWhatHappened(t *testing.T) {
	dir := pluginDir(t, "", "")
	plugin := fakePlugin{answer: func(line []byte) ([]string, bool) {
		decoded := jsonrpc.DecodeLine(line)
		if m := decoded.Items[0].Msg; m != nil && m.Method == methodIDs {
			return []string{`{"jsonrpc":"2.0","id":"retyped","result":null}`}, false
		}
		return wellBehaved(line)
	}}
	synctest.Test(t, func(t *testing.T) {
		r := Run(context.Background(), dir, Options{Transports: fakeTransports(plugin)})
		res, _ := r.Result(CheckIDs)
		want := `escouade-bench/ids: no answer with id "escouade-bench \"id\" 1"; after less than 1 ms answers came with id "retyped" instead, which the bench never sent`
		if diff := cmp.Diff(want, res.Got); diff != "" {
			t.Errorf("ids row (-want +got):\n%s", diff)
		}
	})
}

func TestRoughDuration(t *testing.T) {
	tests := map[string]string{"0s": "less than 1 ms", "40.4ms": "40 ms", "1.72s": "1.7 s", "2s": "2 s", "90s": "90 s"}
	for in, want := range tests {
		d, _ := timeParse(in)
		if got := roughDuration(d); got != want {
			t.Errorf("roughDuration(%s) = %q, want %q", in, got, want)
		}
	}
}
