package jsonrpc

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// refDecodeLine is the decoder as it was before validation and decoding
// became one pass: json validity first, then a second scan of the line.
// FuzzDecodeOnePass holds DecodeLine to it.
func refDecodeLine(line []byte) Line {
	line = trimSpace(line)
	if len(line) == 0 {
		return Line{}
	}
	if !validJSON(line) {
		return Line{Items: []Item{{Err: ErrParse}}}
	}
	data := bytes.Clone(line)
	if data[0] != '[' {
		var m Message
		return Line{Items: []Item{refDecodeItem(data, &m)}}
	}
	values := arrayElements(data)
	if len(values) == 0 {
		return Line{Items: []Item{{Err: ErrInvalidRequest}}}
	}
	items := make([]Item, len(values))
	for i, value := range values {
		var m Message
		items[i] = refDecodeItem(value, &m)
	}
	return Line{Batch: true, Items: items}
}

func refDecodeItem(value []byte, m *Message) Item {
	if value[0] != '{' {
		return invalid(ID{})
	}
	var f fields
	unique := true
	for s := newMembers(value); ; {
		name, raw, ok := s.next()
		if !ok {
			break
		}
		var slot *[]byte
		switch string(name) {
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
		unique = keep(slot, raw) && unique
	}
	id, idOK := readID(f.id)
	if !unique || !idOK || !isVersion2(f.jsonrpc) {
		return invalid(id)
	}
	if f.method != nil {
		return decodeCall(&f, id, m)
	}
	return decodeResponse(&f, id, m)
}

// FuzzDecodeOnePass checks that the one-pass decoder reads every line as
// the two-pass one did.
func FuzzDecodeOnePass(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[1,{"b":"c"}]}}`,
		`[{"jsonrpc":"2.0","id":1,"result":{"x":1}},{"jsonrpc":"2.0","method":"n"},3,[{}]]`,
		`{"jsonrpc":"2.0","id":"a\"b","error":{"code":1,"message":"m","data":[1]}}`,
		`{"m\u0065thod":"x","jsonrpc":"2.0","id":1,"id":2}`,
		`[]`, `{}`, `[{}]`, `"x"`, ` [ {"jsonrpc" : "2.0" , "method" : "m" } ] `,
		"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		want, got := refDecodeLine(line), DecodeLine(line)
		if diff := cmp.Diff(want, got, idComparer); diff != "" {
			t.Fatalf("%q decodes differently (-two passes +one):\n%s", line, diff)
		}
	})
}
