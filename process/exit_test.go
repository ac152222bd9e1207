package process

import (
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/transport"
)

func TestExitString(t *testing.T) {
	tests := []struct {
		exit Exit
		want string
	}{
		{Exit{}, "exit code 0"},
		{Exit{Code: 3}, "exit code 3"},
		{Exit{Code: 255}, "exit code 255"},
		{Exit{Code: -1, Signal: "killed"}, "signal killed"},
		{Exit{Code: -1, Signal: "terminated"}, "signal terminated"},
		{Exit{Code: -1, Signal: "segmentation fault"}, "signal segmentation fault"},
	}
	for _, tt := range tests {
		if got := tt.exit.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.exit, got, tt.want)
		}
	}
}

// The seam's words for how a process ended: the host's own SIGTERM and
// SIGKILL once it was stopping are the host's, any other signal came from
// outside; the signal's name stays as the Detail the crash entry says
// (host.CrashSentence, tested there).
func TestExitInTheSeamsWords(t *testing.T) {
	tests := []struct {
		exit     Exit
		stopping bool
		want     transport.Exit
	}{
		{Exit{Code: 3}, false, transport.Exit{Kind: transport.Exited, Code: 3}},
		{Exit{Code: 0}, true, transport.Exit{Kind: transport.Exited}},
		{Exit{Code: -1, Signal: "killed"}, true, transport.Exit{Kind: transport.Ended, By: transport.ByHostForced, Detail: "signal killed"}},
		{Exit{Code: -1, Signal: "terminated"}, true, transport.Exit{Kind: transport.Ended, By: transport.ByHostAsked, Detail: "signal terminated"}},
		{Exit{Code: -1, Signal: "killed"}, false, transport.Exit{Kind: transport.Ended, By: transport.ByOther, Detail: "signal killed"}},
		{Exit{Code: -1, Signal: "segmentation fault"}, false, transport.Exit{Kind: transport.Ended, By: transport.ByOther, Detail: "signal segmentation fault"}},
	}
	for _, tt := range tests {
		got := tt.exit.neutral(tt.stopping)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%#v, stopping %v (-want +got):\n%s", tt.exit, tt.stopping, diff)
		}
		if !errors.Is(got, transport.ErrEnded) && got.Kind == transport.Ended {
			t.Errorf("%v does not match ErrEnded", got)
		}
	}
}

func TestExitCodeAndLastStderr(t *testing.T) {
	tests := []struct {
		name     string
		lines    int
		code     int
		keep     int
		wantKept []string
	}{
		{"keeps the last 20 by default", 25, 3, 0, numbered(6, 25)},
		{"keeps exactly 20", 20, 1, 0, numbered(1, 20)},
		{"fewer lines than kept", 5, 0, 0, numbered(1, 5)},
		{"no line", 0, 4, 0, []string{}},
		{"keeps what StderrKeep says", 10, 2, 3, numbered(8, 10)},
		{"negative StderrKeep means the default", 30, 9, -1, numbered(11, 30)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log lineLog
			spec := fakeSpec(t, "stderr", strconv.Itoa(tt.lines), strconv.Itoa(tt.code))
			spec.Stderr, spec.StderrKeep = log.add, tt.keep
			p := start(t, spec)
			waitClosed(t, p.Done(), "exit")
			if diff := cmp.Diff(Exit{Code: tt.code}, p.Exit()); diff != "" {
				t.Errorf("Exit (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantKept, p.LastStderr()); diff != "" {
				t.Errorf("LastStderr (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(numbered(1, tt.lines), log.all()); diff != "" {
				t.Errorf("lines given to Spec.Stderr (-want +got):\n%s", diff)
			}
		})
	}
}

// numbered returns "line from" … "line to", as the stderr fake writes them.
func numbered(from, to int) []string {
	var lines []string
	for i := from; i <= to; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	return lines
}
