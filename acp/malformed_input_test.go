package acp

import "testing"

func TestErrorWithoutID(t *testing.T) {
	c := ready(t, Options{}, initOK)
	items, _ := feed(c, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
	diff(t, "items", []Item{notice("the agent could not take a message: Parse error (code -32700)")}, items)
}

func TestMessageIDOfTheWrongType(t *testing.T) {
	c := ready(t, Options{}, initOK)
	line := `{"sessionUpdate":"agent_message_chunk","messageId":5,"content":{"type":"text","text":"a"}}`
	items, _ := feed(c, updateLine(line))
	want := []Item{
		notice("the agent's agent_message_chunk update is not understood: messageId: json: cannot unmarshal number into Go value of type string"),
		unknown(raw(line)),
	}
	diff(t, "items", want, items)
}
