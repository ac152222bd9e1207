package wasm

import (
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/transport"
)

// A module that writes stdout without ever a newline is ended once its
// line runs past the protocol's limit of a line, however fast the host
// reads (docs/protocol.md#3-messages).
func TestEndlessStdoutLine(t *testing.T) {
	tr := newTransport(t, Options{TurnLimit: testDeadline, StdoutLine: 1 << 20})
	prog := launch(t, tr, specOf(pluginDir(t, writesForever("", 64<<10), nil)))
	go func() { _, _ = io.Copy(io.Discard, prog.Stdout()) }()
	want := transport.Exit{Kind: transport.Trapped, Detail: "it wrote a stdout line past 1 MiB, the protocol's limit of a line, without a newline"}
	if diff := cmp.Diff(want, ended(t, prog)); diff != "" {
		t.Errorf("exit (-want +got):\n%s", diff)
	}
}

// Time a module spends waiting for the host to read its output is part of
// its turn: a module writing lines to a host that reads none runs past
// its turn's limit.
func TestBlockedOutputCountsInTheTurn(t *testing.T) {
	tr := newTransport(t, Options{TurnLimit: 300 * time.Millisecond, StdoutBuffer: 4096})
	prog := launch(t, tr, specOf(pluginDir(t, writesForever("x\n", 2), nil)))
	want := transport.Exit{Kind: transport.TurnTooLong, Limit: 300 * time.Millisecond}
	if diff := cmp.Diff(want, ended(t, prog)); diff != "" {
		t.Errorf("exit (-want +got):\n%s", diff)
	}
}
