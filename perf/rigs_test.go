package perf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
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

// rigs lists the sides compared. pipe is what the others' ratios are
// computed against: the inline plugin (JSON decoded and encoded, no
// goroutine) fed fixed bytes over the pipe. host is the measure the
// targets are set for: the same child program called through the host,
// so the ratio is what the host adds. The others tell the costs apart or
// place the host among its peers: raw-echo is the pipe with no JSON at
// all, host-conn and host-kit the host calling a plugin built on
// jsonrpc.Conn or on the Go kit, host-node a plugin in node, jsonrpc-conn
// a bare jsonrpc.Conn calling the conn plugin, go-plugin and mcp-sdk the
// same echo through hashicorp/go-plugin (net/rpc) and the MCP Go SDK
// (a tool over stdio). host-node is left out where node is not installed.
func rigs() []rigSpec {
	specs := []rigSpec{
		{baselineSide, func(tb testing.TB) rig { return startInlineDirect(tb) }},
		{"raw-echo", func(tb testing.TB) rig { return startRaw(tb) }},
		{targetSide, func(tb testing.TB) rig { return startHost(tb, programInline) }},
		{"host-conn", func(tb testing.TB) rig { return startHost(tb, programConnPlugin) }},
		{"host-kit", func(tb testing.TB) rig { return startHost(tb, programKitPlugin) }},
		{"jsonrpc-conn", func(tb testing.TB) rig { return startConn(tb) }},
		{goPluginSide, startGoPlugin},
		{"mcp-sdk", startMCP},
	}
	if node, err := exec.LookPath("node"); err == nil {
		specs = append(specs, rigSpec{"host-node", func(tb testing.TB) rig { return startNodeHost(tb, node) }})
	}
	return specs
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
