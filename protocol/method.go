package protocol

import (
	"slices"
	"strings"
	"time"
)

// Version is the protocol's major version, the one schemas.Protocol describes.
const Version = 1

// Direction says which side sends a method.
type Direction string

// The two directions of the schema's "direction" field.
const (
	DirHostToPlugin Direction = "host-to-plugin"
	DirPluginToHost Direction = "plugin-to-host"
)

// patternSuffix ends the name of an entry that stands for every method
// under a prefix.
const patternSuffix = "/*"

// Method is one entry of the schema's method table.
type Method struct {
	// Name is a method name, or a prefix pattern such as "permissions/*".
	Name         string
	Direction    Direction
	Notification bool
	// WASMOnly methods are served to WASM plugins only; a process gets -32601.
	WASMOnly bool
	// Errors lists the error codes the method may answer.
	Errors []int
	// Delay is how long the host waits for the answer to a host→plugin call;
	// zero for notifications and plugin→host methods.
	Delay time.Duration
}

// IsPattern reports whether m stands for every method under a prefix.
func (m Method) IsPattern() bool {
	return strings.HasSuffix(m.Name, patternSuffix)
}

// Matches reports whether m is the entry of the method called name.
func (m Method) Matches(name string) bool {
	if !m.IsPattern() {
		return m.Name == name
	}
	prefix := strings.TrimSuffix(m.Name, "*")
	return len(name) > len(prefix) && strings.HasPrefix(name, prefix)
}

// clone returns m with a slice of its own, so callers cannot change the table.
func (m Method) clone() Method {
	m.Errors = slices.Clone(m.Errors)
	return m
}

// Lookup returns the entry of a method: its exact name first, then the
// longest prefix pattern that matches it.
func Lookup(method string) (Method, bool) {
	e, ok := table().find(method)
	if !ok {
		return Method{}, false
	}
	return e.method.clone(), true
}

// Methods returns every entry of the schema, sorted by name.
func Methods() []Method {
	t := table()
	out := make([]Method, 0, len(t.sorted))
	for _, e := range t.sorted {
		out = append(out, e.method.clone())
	}
	return out
}

// Delay returns how long the host waits for the answer to a host→plugin
// call of method. A method the schema does not give a delay (unknown,
// app-defined, or not a host→plugin call) gets DefaultDelay.
func Delay(method string) time.Duration {
	t := table()
	if e, ok := t.find(method); ok && e.method.Delay > 0 {
		return e.method.Delay
	}
	return t.defaultDelay
}

// DefaultDelay is the delay of "any other" host→plugin call, from the schema.
func DefaultDelay() time.Duration {
	return table().defaultDelay
}
