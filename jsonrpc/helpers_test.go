package jsonrpc

import (
	"encoding/json"

	"github.com/google/go-cmp/cmp"
)

// idComparer compares ids by their exact text.
var idComparer = cmp.Comparer(func(a, b ID) bool { return a == b })

// rawID returns the id whose exact text is raw.
func rawID(raw string) ID { return ID{raw: raw} }

func raw(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}

// single is the line holding one item.
func single(item Item) Line { return Line{Items: []Item{item}} }

// valid is the item of a valid message.
func valid(m *Message) Item { return Item{Msg: m} }

func request(id, method, params string) *Message {
	return &Message{ID: rawID(id), Method: method, Params: raw(params)}
}

func notification(method, params string) *Message {
	return &Message{Method: method, Params: raw(params)}
}

func success(id, result string) *Message {
	return &Message{ID: rawID(id), Result: raw(result)}
}

func failure(id string, e *Error) *Message {
	return &Message{ID: rawID(id), Error: e}
}

// invalidItem is the -32600 item answered with the id whose text is id.
func invalidItem(id string) Item {
	return Item{Err: ErrInvalidRequest, ErrID: rawID(id)}
}

// parseItem is the -32700 item.
var parseItem = Item{Err: ErrParse}
