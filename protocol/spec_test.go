package protocol

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// specMethod is a method as docs/protocol.md, sections 2 to 14, describes it.
type specMethod struct {
	Direction    Direction
	Notification bool
	WASMOnly     bool
	Errors       []int
}

// specMethods lists every method of docs/protocol.md, sections 2 to 14, keyed by an example
// name (a pattern entry is looked up through a name it covers), with the
// entry the name must resolve to.
var specMethods = map[string]struct {
	entry string
	want  specMethod
}{
	// docs/protocol.md sections 4, 6 and 9: what the host calls.
	"initialize":          {"initialize", specMethod{DirHostToPlugin, false, false, []int{}}},
	"shutdown":            {"shutdown", specMethod{DirHostToPlugin, false, false, []int{}}},
	"event/ticket.column": {"event/*", specMethod{DirHostToPlugin, true, false, []int{}}},
	"agent/attach":        {"agent/attach", specMethod{DirHostToPlugin, false, false, []int{-32601, -32602}}},
	"permissions/ask":     {"permissions/*", specMethod{DirHostToPlugin, false, false, []int{-32601, -32602}}},
	"tickets/import":      {"tickets/*", specMethod{DirHostToPlugin, false, false, []int{-32601, -32602}}},
	"forge/pullRequest":   {"forge/*", specMethod{DirHostToPlugin, false, false, []int{-32601, -32602}}},
	"workflow/run":        {"workflow/*", specMethod{DirHostToPlugin, false, false, []int{-32601, -32602}}},
	"engine/oneShot":      {"engine/oneShot", specMethod{DirHostToPlugin, false, false, []int{-32601, -32602}}},
	// docs/protocol.md section 14: what the host sends modules as notifications.
	"timer/fired": {"timer/fired", specMethod{DirHostToPlugin, true, true, []int{}}},
	"net/chunk":   {"net/chunk", specMethod{DirHostToPlugin, true, true, []int{}}},
	"net/end":     {"net/end", specMethod{DirHostToPlugin, true, true, []int{}}},
	"ws/message":  {"ws/message", specMethod{DirHostToPlugin, true, true, []int{}}},
	"ws/closed":   {"ws/closed", specMethod{DirHostToPlugin, true, true, []int{}}},
	// docs/protocol.md section 7: what the host serves every plugin.
	"secrets/get":  {"secrets/get", specMethod{DirPluginToHost, false, false, []int{-32602, -32001, -32002}}},
	"settings/get": {"settings/get", specMethod{DirPluginToHost, false, false, []int{-32602}}},
	"log":          {"log", specMethod{DirPluginToHost, true, false, []int{}}},
	"files/read":   {"files/read", specMethod{DirPluginToHost, false, false, []int{-32602, -32003, -32004, -32005}}},
	// docs/protocol.md section 14: what the host serves modules only.
	"net/fetch":   {"net/fetch", specMethod{DirPluginToHost, false, true, []int{-32602, -32003, -32004}}},
	"net/stream":  {"net/stream", specMethod{DirPluginToHost, false, true, []int{-32602, -32003, -32004}}},
	"net/cancel":  {"net/cancel", specMethod{DirPluginToHost, false, true, []int{-32602}}},
	"ws/open":     {"ws/open", specMethod{DirPluginToHost, false, true, []int{-32602, -32003, -32004}}},
	"ws/send":     {"ws/send", specMethod{DirPluginToHost, false, true, []int{-32602, -32004}}},
	"ws/close":    {"ws/close", specMethod{DirPluginToHost, false, true, []int{-32602}}},
	"timer/set":   {"timer/set", specMethod{DirPluginToHost, false, true, []int{-32602, -32003}}},
	"timer/clear": {"timer/clear", specMethod{DirPluginToHost, false, true, []int{-32602}}},
	"fs/read":     {"fs/read", specMethod{DirPluginToHost, false, true, []int{-32602, -32003, -32004, -32005}}},
	"fs/write":    {"fs/write", specMethod{DirPluginToHost, false, true, []int{-32602, -32003, -32004}}},
	"fs/list":     {"fs/list", specMethod{DirPluginToHost, false, true, []int{-32602, -32003, -32004, -32005}}},
	"fs/stat":     {"fs/stat", specMethod{DirPluginToHost, false, true, []int{-32602, -32003, -32004, -32005}}},
	"fs/remove":   {"fs/remove", specMethod{DirPluginToHost, false, true, []int{-32602, -32003, -32004, -32005}}},
	"fs/mkdir":    {"fs/mkdir", specMethod{DirPluginToHost, false, true, []int{-32602, -32003, -32004}}},
	"proc/run":    {"proc/run", specMethod{DirPluginToHost, false, true, []int{-32602, -32003, -32004}}},
}

func TestEveryMethodOfTheSpecIsInTheSchema(t *testing.T) {
	for name, tt := range specMethods {
		m, ok := Lookup(name)
		if !ok {
			t.Errorf("Lookup(%q): not in the schema", name)
			continue
		}
		if m.Name != tt.entry {
			t.Errorf("Lookup(%q) = entry %q, want %q", name, m.Name, tt.entry)
		}
		got := specMethod{m.Direction, m.Notification, m.WASMOnly, m.Errors}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

func TestTheSchemaHoldsNothingBeyondTheSpec(t *testing.T) {
	inSpec := map[string]bool{}
	for _, tt := range specMethods {
		inSpec[tt.entry] = true
	}
	for _, m := range Methods() {
		if !inSpec[m.Name] {
			t.Errorf("the schema has %q, which docs/protocol.md does not describe", m.Name)
		}
	}
}
