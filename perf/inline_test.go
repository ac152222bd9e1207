package perf

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
)

// inlinePlugin is the conn plugin without jsonrpc.Conn's concurrency: one
// goroutine reads a line, decodes it with the same decoder, answers every
// request of it at once and writes the answer line. It is not how a
// plugin should be written (a slow method would hold every other), but
// beside conn-plugin it shows what serving each request on a goroutine of
// its own costs, and beside the raw pipe what the host costs alone.
func inlinePlugin(r io.Reader, w io.Writer) error {
	lines := jsonrpc.NewLineReader(r, jsonrpc.DefaultMaxLine)
	out := bufio.NewWriter(w)
	for {
		line, tooLong, err := lines.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if tooLong {
			continue
		}
		answer, err := answerLine(jsonrpc.DecodeLine(line))
		if err != nil {
			return err
		}
		if answer == nil {
			continue
		}
		out.Write(answer)
		out.WriteByte('\n')
		if err := out.Flush(); err != nil {
			return err
		}
	}
}

// answerLine is the answer line to a decoded line, nil when it holds no
// request.
func answerLine(l jsonrpc.Line) ([]byte, error) {
	var answers []*jsonrpc.Message
	for _, item := range l.Items {
		switch m := item.Msg; {
		case m == nil:
			answers = append(answers, &jsonrpc.Message{ID: item.ErrID, Error: item.Err})
		case m.IsRequest():
			answers = append(answers, answerInline(m))
		}
	}
	switch {
	case len(answers) == 0:
		return nil, nil
	case !l.Batch:
		return answers[0].MarshalJSON()
	}
	return appendArray(answers)
}

// appendArray writes answers as one JSON array, without the second pass
// json.Marshal makes over what a MarshalJSON returns.
func appendArray(answers []*jsonrpc.Message) ([]byte, error) {
	buf := []byte{'['}
	for k, m := range answers {
		if k > 0 {
			buf = append(buf, ',')
		}
		b, err := m.MarshalJSON()
		if err != nil {
			return nil, err
		}
		buf = append(buf, b...)
	}
	return append(buf, ']'), nil
}

// answerInline serves one request as serveEcho does.
func answerInline(m *jsonrpc.Message) *jsonrpc.Message {
	switch m.Method {
	case "initialize":
		return &jsonrpc.Message{ID: m.ID, Result: initializeAnswer}
	case "shutdown":
		return &jsonrpc.Message{ID: m.ID, Result: json.RawMessage("null")}
	case echoMethod:
		return &jsonrpc.Message{ID: m.ID, Result: m.Params}
	}
	return &jsonrpc.Message{ID: m.ID, Error: jsonrpc.ErrMethodNotFound}
}
