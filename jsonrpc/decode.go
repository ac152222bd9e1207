package jsonrpc

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// Line is one decoded line: a single message or a batch.
type Line struct {
	// Batch is true for a non-empty JSON array; its answer is an array too.
	Batch bool
	// Items holds one item for a single message, one per member, in order,
	// for a batch, and none for a blank line.
	Items []Item
}

// Item is one message of a line, or the error answer it calls for.
type Item struct {
	// Msg is the valid message, or nil.
	Msg *Message
	// Err is set when the member is invalid: the error to answer with.
	Err *Error
	// ErrID is the id to answer Err with: the member's id when it could
	// be read, else the zero ID (written as null).
	ErrID ID
}

// DecodeLine decodes one line, given without its '\n' (a trailing '\r' is
// tolerated). It never fails: what is not a message becomes an item
// carrying the error to answer, per JSON-RPC 2.0 and PROTOCOL.md §3.
//
//   - not JSON, invalid UTF-8, or data after the value: one item, -32700;
//   - [] : one item, -32600, and Batch is false (the answer is not an array);
//   - a batch member or single value that is not a valid message: -32600.
//
// The messages do not alias line: the caller may reuse it. A blank line
// gives no item.
func DecodeLine(line []byte) Line {
	line = trimSpace(bytes.TrimSuffix(line, []byte("\r")))
	if len(line) == 0 {
		return Line{}
	}
	if !utf8.Valid(line) || !json.Valid(line) {
		return Line{Items: []Item{{Err: ErrParse}}}
	}
	data := bytes.Clone(line)
	if data[0] != '[' {
		return Line{Items: []Item{decodeItem(data)}}
	}
	members := arrayElements(data)
	if len(members) == 0 {
		return Line{Items: []Item{{Err: ErrInvalidRequest}}}
	}
	items := make([]Item, len(members))
	for i, member := range members {
		items[i] = decodeItem(member)
	}
	return Line{Batch: true, Items: items}
}

// members holds the raw values of the members JSON-RPC defines; nil means
// absent.
type members struct {
	jsonrpc, id, method, params, result, error []byte
}

// slot tells scanObject where each known member goes.
func (f *members) slot(name []byte) *[]byte {
	switch string(name) {
	case "jsonrpc":
		return &f.jsonrpc
	case "id":
		return &f.id
	case "method":
		return &f.method
	case "params":
		return &f.params
	case "result":
		return &f.result
	case "error":
		return &f.error
	}
	return nil
}

// decodeItem decodes one valid JSON value as a message.
func decodeItem(value []byte) Item {
	if value[0] != '{' {
		return invalid(ID{})
	}
	var f members
	unique := scanObject(value, f.slot)
	id, idOK := readID(f.id)
	if !unique || !idOK || !isVersion2(f.jsonrpc) {
		return invalid(id)
	}
	if f.method != nil {
		return decodeCall(&f, id)
	}
	return decodeResponse(&f, id)
}

// invalid is the -32600 item answered with id.
func invalid(id ID) Item {
	return Item{Err: ErrInvalidRequest, ErrID: id}
}

// readID reads an id member: absent and null give the zero ID; ok is false
// for an object, an array or a boolean.
func readID(raw []byte) (id ID, ok bool) {
	if raw == nil || string(raw) == nullJSON {
		return ID{}, true
	}
	if !isIDToken(raw) {
		return ID{}, false
	}
	return ID{raw: string(raw)}, true
}

// isVersion2 reports whether the jsonrpc member is the string "2.0".
func isVersion2(raw []byte) bool {
	if string(raw) == `"2.0"` {
		return true
	}
	text, ok := unquote(raw)
	return ok && text == "2.0"
}

// decodeCall decodes a request or a notification.
func decodeCall(f *members, id ID) Item {
	method, ok := unquote(f.method)
	hasNullID := f.id != nil && id.IsZero()
	if !ok || method == "" || hasNullID || f.result != nil || f.error != nil {
		return invalid(id)
	}
	params := f.params
	if string(params) == nullJSON {
		params = nil
	}
	if params != nil && params[0] != '{' && params[0] != '[' {
		return invalid(id)
	}
	return Item{Msg: &Message{ID: id, Method: method, Params: params}}
}

// decodeResponse decodes a success or error answer.
func decodeResponse(f *members, id ID) Item {
	if f.id == nil || f.params != nil || (f.result == nil) == (f.error == nil) {
		return invalid(id)
	}
	if f.result != nil {
		if id.IsZero() {
			return invalid(id)
		}
		return Item{Msg: &Message{ID: id, Result: f.result}}
	}
	e, ok := decodeError(f.error)
	if !ok {
		return invalid(id)
	}
	return Item{Msg: &Message{ID: id, Error: e}}
}

// decodeError decodes an error member: an object with an integer code, a
// string message and any data.
func decodeError(raw []byte) (*Error, bool) {
	if raw[0] != '{' {
		return nil, false
	}
	var code, message, data []byte
	unique := scanObject(raw, func(name []byte) *[]byte {
		switch string(name) {
		case "code":
			return &code
		case "message":
			return &message
		case "data":
			return &data
		}
		return nil
	})
	if !unique || code == nil {
		return nil, false
	}
	n, err := strconv.ParseInt(string(code), 10, 64)
	text, ok := unquote(message)
	if err != nil || !ok {
		return nil, false
	}
	return &Error{Code: n, Message: text, Data: data}, true
}
