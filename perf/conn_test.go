package perf

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
)

// connRig calls the conn plugin with a bare jsonrpc.Conn, without the
// host: the share of the cost that is the wire's and not the host's.
type connRig struct {
	prog  *program
	conn  *jsonrpc.Conn
	one   json.RawMessage
	calls []jsonrpc.BatchCall
}

func startConn(tb testing.TB) *connRig {
	tb.Helper()
	prog := startProgram(tb, programConnPlugin)
	r := &connRig{
		prog:  prog,
		conn:  jsonrpc.NewConn(prog.out, prog.in, jsonrpc.Options{}),
		one:   json.RawMessage(echoParams),
		calls: echoBatch(),
	}
	tb.Cleanup(r.close)
	return r
}

func (r *connRig) roundTrip() error {
	res, err := r.conn.Call(context.Background(), echoMethod, r.one)
	return checkResult(res, err, r.one)
}

func (r *connRig) batch() error {
	results := r.conn.Batch(context.Background(), r.calls)
	if len(results) != len(r.calls) {
		return fmt.Errorf("%d results for %d calls", len(results), len(r.calls))
	}
	for _, res := range results {
		if err := checkResult(res.Result, res.Err, r.one); err != nil {
			return err
		}
	}
	return nil
}

// close ends the plugin by closing its stdin, then stops the connection.
func (r *connRig) close() {
	r.prog.stop()
	r.conn.Close()
	r.conn.Wait()
}
