package jsonrpc

import (
	"bytes"
	"strconv"
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
// carrying the error to answer, per JSON-RPC 2.0 and docs/protocol.md#3-messages.
//
//   - not JSON, invalid UTF-8, or data after the value: one item, -32700;
//   - [] : one item, -32600, and Batch is false (the answer is not an array);
//   - a batch member or single value that is not a valid message: -32600.
//
// The messages do not alias line: the caller may reuse it. A blank line
// gives no item.
func DecodeLine(line []byte) Line {
	return decodeLine(line, new(layout))
}

// keepLayout is the largest layout a connection keeps from line to line.
const keepLayout = 4096

// reset empties the layout for the next line, keeping its memory unless
// a huge batch made it large.
func (lay *layout) reset() {
	if cap(lay.members) > keepLayout || cap(lay.elems) > keepLayout {
		*lay = layout{}
	}
	lay.elems, lay.members = lay.elems[:0], lay.members[:0]
}

// decodeLine is DecodeLine with the layout's memory given, so that a
// connection reuses it from line to line.
func decodeLine(line []byte, lay *layout) Line {
	line = trimSpace(line) // a trailing '\r' is JSON whitespace too
	if len(line) == 0 {
		return Line{}
	}
	data := bytes.Clone(line)
	lay.reset()
	if !validLayout(data, lay) {
		return Line{Items: []Item{{Err: ErrParse}}}
	}
	if data[0] != '[' {
		return decodeSingle(data, lay)
	}
	return decodeBatch(data, lay)
}

// decodeSingle decodes a line holding one value. The item and its message
// share one allocation: most lines are single messages.
func decodeSingle(data []byte, lay *layout) Line {
	one := new(struct {
		items [1]Item
		msg   Message
	})
	one.items[0] = decodeItem(data, lay.elems[0], lay.members, &one.msg)
	return Line{Items: one.items[:]}
}

// decodeBatch decodes the members of a batch; the messages share one
// allocation.
func decodeBatch(data []byte, lay *layout) Line {
	if len(lay.elems) == 0 {
		return Line{Items: []Item{{Err: ErrInvalidRequest}}}
	}
	items := make([]Item, len(lay.elems))
	msgs := make([]Message, len(lay.elems))
	for i, e := range lay.elems {
		items[i] = decodeItem(data, e, lay.members, &msgs[i])
	}
	return Line{Batch: true, Items: items}
}

// fields holds the raw values of the members JSON-RPC defines; nil means
// absent.
type fields struct {
	jsonrpc, id, method, params, result, error []byte
}

// read keeps the known members of an object, given by their spans in
// data; it reports false when one of them appears twice.
func (f *fields) read(data []byte, spans []memberSpan) bool {
	unique := true
	for _, sp := range spans {
		var slot *[]byte
		switch string(memberName(data[sp.nameStart:sp.nameEnd])) {
		case "jsonrpc":
			slot = &f.jsonrpc
		case "id":
			slot = &f.id
		case "method":
			slot = &f.method
		case "params":
			slot = &f.params
		case "result":
			slot = &f.result
		case "error":
			slot = &f.error
		default:
			continue
		}
		unique = keep(slot, data[sp.valueStart:sp.valueEnd:sp.valueEnd]) && unique
	}
	return unique
}

// decodeItem decodes one message-level value of data as a message, filled
// into m when it is one.
func decodeItem(data []byte, e element, members []memberSpan, m *Message) Item {
	if e.from < 0 {
		return invalid(ID{})
	}
	var f fields
	unique := f.read(data, members[e.from:e.to])
	id, idOK := readID(f.id)
	if !unique || !idOK || !isVersion2(f.jsonrpc) {
		return invalid(id)
	}
	if f.method != nil {
		return decodeCall(&f, id, m)
	}
	return decodeResponse(&f, id, m)
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
	return ID{raw: frozen(raw)}, true
}

// isVersion2 reports whether the jsonrpc member is the string "2.0".
func isVersion2(raw []byte) bool {
	if string(raw) == `"2.0"` {
		return true
	}
	text, ok := unquote(raw)
	return ok && text == "2.0"
}

// decodeCall decodes a request or a notification into m.
func decodeCall(f *fields, id ID, m *Message) Item {
	method, ok := unquote(f.method)
	hasNullID := f.id != nil && id.IsZero()
	if !ok || method == "" || hasNullID || f.result != nil || f.error != nil {
		return invalid(id)
	}
	// Params may be any JSON value: the reference's own example sends
	// "params": 1 (docs/protocol.md#3-messages), and a plugin written from
	// it must be served. What a method takes is its schema's to say.
	params := f.params
	if string(params) == nullJSON {
		params = nil
	}
	*m = Message{ID: id, Method: method, Params: params}
	return Item{Msg: m}
}

// decodeResponse decodes a success or error answer into m.
func decodeResponse(f *fields, id ID, m *Message) Item {
	if f.id == nil || f.params != nil || (f.result == nil) == (f.error == nil) {
		return invalid(id)
	}
	if f.result != nil {
		if id.IsZero() {
			return invalid(id)
		}
		*m = Message{ID: id, Result: f.result}
		return Item{Msg: m}
	}
	e, ok := decodeError(f.error)
	if !ok {
		return invalid(id)
	}
	*m = Message{ID: id, Error: e}
	return Item{Msg: m}
}

// decodeError decodes an error member: an object with an integer code, a
// string message and any data.
func decodeError(raw []byte) (*Error, bool) {
	if raw[0] != '{' {
		return nil, false
	}
	var code, message, data []byte
	unique := true
	for s := newMembers(raw); ; {
		name, value, ok := s.next()
		if !ok {
			break
		}
		switch string(name) {
		case "code":
			unique = keep(&code, value) && unique
		case "message":
			unique = keep(&message, value) && unique
		case "data":
			unique = keep(&data, value) && unique
		}
	}
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
