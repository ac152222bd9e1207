package acp

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Permission outcomes (RequestPermissionOutcome).
const (
	OutcomeSelected  = "selected"
	OutcomeCancelled = "cancelled"
)

// onRequest handles a request of the agent: the ones the host answers become
// items with a handle; any other, fs/* included when Options.FS is off, is
// refused with method not found.
func (c *Client) onRequest(m *incoming, raw []byte) {
	var err error
	switch {
	case c.opts.Cursor && strings.HasPrefix(m.Method, cursorPrefix):
		var handled bool
		if handled, err = c.cursorMessage(m); !handled {
			c.answerError(m.ID, &Error{Code: CodeMethodNotFound, Message: "method not found: " + m.Method})
			c.emit(unknown(raw))
			return
		}
	case m.Method == methodRequestPermission:
		err = c.onPermissionRequest(m)
	case m.Method == methodReadTextFile && c.opts.FS:
		err = c.onReadRequest(m)
	case m.Method == methodWriteTextFile && c.opts.FS:
		err = c.onWriteRequest(m)
	default:
		c.answerError(m.ID, &Error{Code: CodeMethodNotFound, Message: "method not found: " + m.Method})
		c.emit(unknown(raw))
		return
	}
	if err != nil {
		c.answerError(m.ID, &Error{Code: CodeInvalidParams, Message: err.Error()})
		c.emit(notice(fmt.Sprintf("the agent's %s request is not understood: %v", m.Method, err)), unknown(raw))
	}
}

type readRequest struct {
	Path  string `json:"path"`
	Line  *int   `json:"line"`
	Limit *int   `json:"limit"`
}

type writeRequest struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

func (c *Client) onReadRequest(m *incoming) error {
	var r readRequest
	if err := decodeParams(m.Params, &r); err != nil {
		return err
	}
	handle := c.handles.add(waiting{itemType: TypeFSRead, id: m.ID})
	c.emit(Item{Type: TypeFSRead, Request: handle, Path: r.Path, Line: r.Line, Limit: r.Limit})
	return nil
}

func (c *Client) onWriteRequest(m *incoming) error {
	var r writeRequest
	if err := decodeParams(m.Params, &r); err != nil {
		return err
	}
	if r.Content == nil {
		return errors.New("no content")
	}
	handle := c.handles.add(waiting{itemType: TypeFSWrite, id: m.ID})
	c.emit(Item{Type: TypeFSWrite, Request: handle, Path: r.Path, Text: *r.Content})
	return nil
}

// decodeParams reads params that must name a path.
func decodeParams(params json.RawMessage, v interface{ path() string }) error {
	if err := json.Unmarshal(params, v); err != nil {
		return err
	}
	if v.path() == "" {
		return errors.New("no path")
	}
	return nil
}

func (r *readRequest) path() string  { return r.Path }
func (r *writeRequest) path() string { return r.Path }

// Reply answers an agent's request waiting under handle: with result (the
// ACP result object, e.g. {"content": text} for fsRead, {} for fsWrite), or
// with err when it is not nil (an *Error keeps its code, any other error is
// an internal error).
func (c *Client) Reply(handle string, result any, err error) []Out {
	w, ok := c.handles.take(handle)
	if !ok || w.itemType == TypeQuestion {
		return nil
	}
	if err != nil {
		c.answerError(w.id, wireError(err))
	} else {
		c.answer(w.id, result)
	}
	_, outs := c.flush()
	return outs
}

func wireError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeInternalError, Message: err.Error()}
}

func (c *Client) answer(id json.RawMessage, result any) {
	if result == nil {
		result = struct{}{}
	}
	if !c.send(outResult{JSONRPC: jsonrpcVersion, ID: id, Result: result}) {
		c.answerError(id, &Error{Code: CodeInternalError, Message: "the host's answer cannot be encoded"})
	}
}

func (c *Client) answerError(id json.RawMessage, e *Error) {
	c.send(outError{JSONRPC: jsonrpcVersion, ID: id, Error: e})
}
