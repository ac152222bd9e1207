package jsonrpc

import (
	"encoding/json"
	"strconv"
)

// Message is one decoded JSON-RPC object: a request (Method and ID), a
// notification (Method and the zero ID) or a response (ID, and Result or
// Error). Params and Result hold raw JSON; a Result of nil means none, and a
// result of null is json.RawMessage("null").
type Message struct {
	ID     ID
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  *Error
}

// IsRequest reports whether m is a call that expects an answer.
func (m *Message) IsRequest() bool { return m.Method != "" && !m.ID.IsZero() }

// IsNotification reports whether m is a call without an answer.
func (m *Message) IsNotification() bool { return m.Method != "" && m.ID.IsZero() }

// IsResponse reports whether m answers a request.
func (m *Message) IsResponse() bool { return m.Method == "" }

// MarshalJSON writes m as one line of JSON with "jsonrpc":"2.0". A response
// has "id":null when its ID is zero, an error answer has no result, and a
// success answer without a Result has "result":null.
func (m *Message) MarshalJSON() ([]byte, error) {
	return appendMessage(nil, m)
}

// appendMessage appends m to buf, the way every message of a Conn is
// written.
func appendMessage(buf []byte, m *Message) ([]byte, error) {
	buf = append(buf, `{"jsonrpc":"2.0"`...)
	if m.IsResponse() || !m.ID.IsZero() {
		buf = append(buf, `,"id":`...)
		buf = append(buf, m.ID.Raw()...)
	}
	if !m.IsResponse() {
		return appendCall(buf, m.Method, m.Params)
	}
	if m.Error != nil {
		return appendErrorMember(buf, m.Error)
	}
	buf = append(buf, `,"result":`...)
	if len(m.Result) == 0 {
		buf = append(buf, nullJSON...)
	} else {
		var err error
		if buf, err = appendRaw(buf, m.Result); err != nil {
			return nil, err
		}
	}
	return append(buf, '}'), nil
}

// appendCall appends the method and params members and closes the object.
func appendCall(buf []byte, method string, params json.RawMessage) ([]byte, error) {
	buf = append(buf, `,"method":`...)
	buf = appendString(buf, method)
	if len(params) > 0 {
		buf = append(buf, `,"params":`...)
		var err error
		if buf, err = appendRaw(buf, params); err != nil {
			return nil, err
		}
	}
	return append(buf, '}'), nil
}

// appendErrorMember appends the error member and closes the object.
func appendErrorMember(buf []byte, e *Error) ([]byte, error) {
	buf = append(buf, `,"error":{"code":`...)
	buf = strconv.AppendInt(buf, e.Code, 10)
	buf = append(buf, `,"message":`...)
	buf = appendString(buf, e.Message)
	if len(e.Data) > 0 {
		buf = append(buf, `,"data":`...)
		var err error
		if buf, err = appendRaw(buf, e.Data); err != nil {
			return nil, err
		}
	}
	return append(buf, "}}"...), nil
}

// appendRequest appends a request with an integer id without building a
// Message, the hot path of Call.
func appendRequest(buf []byte, id int64, method string, params json.RawMessage) ([]byte, error) {
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = strconv.AppendInt(buf, id, 10)
	return appendCall(buf, method, params)
}
