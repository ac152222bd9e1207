package protocol_test

import (
	"encoding/json"
	"fmt"

	"github.com/escouade-dev/escouade-plugin/protocol"
)

func ExampleValidateParams() {
	err := protocol.ValidateParams("secrets/get", json.RawMessage(`{"key":42}`))
	fmt.Println(err)
	// Output: params/key: must be a string, not a number
}

func ExampleDelay() {
	for _, method := range []string{"initialize", "permissions/ask", "tickets/import", "test/do"} {
		fmt.Printf("%s: no answer within %s\n", method, protocol.FormatDuration(protocol.Delay(method)))
	}
	// Output:
	// initialize: no answer within 10 s
	// permissions/ask: no answer within 500 ms
	// tickets/import: no answer within 1 min
	// test/do: no answer within 5 s
}

func ExampleLookup() {
	m, ok := protocol.Lookup("net/fetch")
	fmt.Println(ok, m.Direction, m.WASMOnly, m.Errors)
	// Output: true plugin-to-host true [-32602 -32003 -32004]
}
