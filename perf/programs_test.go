package perf

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/kit"
)

// echoMethod is the call every plugin program answers with its params.
const echoMethod = "perf/echo"

// initializeAnswer is what the conn plugin answers initialize: the
// smallest answer the host accepts, with batches on.
var initializeAnswer = json.RawMessage(`{"protocolVersion":1,"capabilities":{"batch":true}}`)

// rawEcho writes every line of r back to w as soon as it is read: the
// floor any line protocol over this pipe is held to.
func rawEcho(r io.Reader, w io.Writer) error {
	in := bufio.NewReader(r)
	out := bufio.NewWriter(w)
	for {
		line, err := in.ReadSlice('\n')
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := out.Write(line); err != nil {
			return err
		}
		if err := out.Flush(); err != nil {
			return err
		}
	}
}

// connPlugin is a minimal protocol-1 plugin on jsonrpc.Conn. It serves
// until the host closes its stdin.
func connPlugin(r io.Reader, w io.Writer) error {
	conn := jsonrpc.NewConn(r, w, jsonrpc.Options{Handle: serveEcho})
	err := conn.Wait() // the answers under way are written by then
	conn.Close()
	return err
}

func serveEcho(_ context.Context, m *jsonrpc.Message) (any, error) {
	switch m.Method {
	case "initialize":
		return initializeAnswer, nil
	case "shutdown":
		return nil, nil
	case echoMethod:
		return m.Params, nil
	}
	return nil, jsonrpc.ErrMethodNotFound
}

// kitPlugin is the same plugin written with the Go kit, which answers
// initialize and shutdown itself.
func kitPlugin() error {
	p := kit.New()
	p.Handle(echoMethod, func(_ context.Context, params json.RawMessage) (any, error) {
		return params, nil
	})
	return p.Run()
}
