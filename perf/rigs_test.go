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
// are set for; the others tell the costs apart: jsonrpc-conn is the conn
// plugin called without the host, host-kit the same plugin written with
// the kit, host-inline a plugin that serves requests without goroutines.
func rigs() []rigSpec {
	return []rigSpec{
		{"raw-pipe", func(tb testing.TB) rig { return startRaw(tb) }},
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

// checkEcho reports how got differs from the sent line it should repeat.
func checkEcho(sent, got []byte) error {
	if !bytes.Equal(sent, got) {
		return fmt.Errorf("echo of %q came back as %q", sent, got)
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
