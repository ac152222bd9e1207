package perf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
)

// batchSize is how many calls a batch carries in the throughput
// measures, the size the targets are given for.
const batchSize = 100

// echoParams are the params of every echo call: small, as most of the
// protocol's are.
const echoParams = `{"n":1}`

// rig is one side of a comparison: a program at the end of a pipe that
// echoes what it is sent, and the way to talk to it. Each method checks
// the answers it gets, so a rig that stopped echoing fails instead of
// measuring nothing.
type rig interface {
	// roundTrip sends one call and waits for its answer.
	roundTrip() error
	// batch sends batchSize calls at once and waits for all the answers.
	batch() error
	// close stops the program and waits for it to end.
	close()
}

// rigSpec names a rig and starts it.
type rigSpec struct {
	name  string
	start func(testing.TB) rig
}

// rigs lists the sides compared, the raw pipe first: it is what the
// others' ratios are computed against. host is the measure the targets
// are set for; the others tell the costs apart: inline-direct is the
// inline plugin (JSON, no goroutines) fed fixed bytes, jsonrpc-conn the
// conn plugin called by a bare jsonrpc.Conn, host-kit the conn plugin
// written with the kit, host-inline the inline plugin under the host.
func rigs() []rigSpec {
	return []rigSpec{
		{"raw-pipe", func(tb testing.TB) rig { return startRaw(tb) }},
		{"inline-direct", func(tb testing.TB) rig { return startInlineDirect(tb) }},
		{"jsonrpc-conn", func(tb testing.TB) rig { return startConn(tb) }},
		{"host", func(tb testing.TB) rig { return startHost(tb, programConnPlugin) }},
		{"host-kit", func(tb testing.TB) rig { return startHost(tb, programKitPlugin) }},
		{"host-inline", func(tb testing.TB) rig { return startHost(tb, programInline) }},
	}
}

// echoLine is the request line the host writes for echo call id, byte
// for byte, so that the raw pipe carries the same bytes.
func echoLine(id int) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, echoMethod, echoParams)
}

// checkEcho reports how got differs from the line it should be.
func checkEcho(want, got []byte) error {
	if !bytes.Equal(want, got) {
		return fmt.Errorf("want line %q, got %q", want, got)
	}
	return nil
}

// echoBatch is batchSize echo calls.
func echoBatch() []jsonrpc.BatchCall {
	calls := make([]jsonrpc.BatchCall, batchSize)
	for k := range calls {
		calls[k] = jsonrpc.BatchCall{Method: echoMethod, Params: json.RawMessage(echoParams)}
	}
	return calls
}

// checkResult reports how an answer differs from the echo of params.
func checkResult(res json.RawMessage, err error, params json.RawMessage) error {
	switch {
	case err != nil:
		return fmt.Errorf("error answer: %w", err)
	case !bytes.Equal(res, params):
		return fmt.Errorf("echo of %s came back as %s", params, res)
	}
	return nil
}
