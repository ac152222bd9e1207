package services

import (
	"context"
	"encoding/json"
)

// Handler serves one plugin→host method for one instance of a program.
// A refusal is an *Error; the host journals it and the params check runs
// once around every handler, so a handler only does its own work. ctx ends
// with the instance.
type Handler func(ctx context.Context, params json.RawMessage) (any, error)

// Peer is the plugin's end of the connection as a service sees it: a
// service that pushes (timer/fired, net/chunk, ws/message) notifies
// through it.
type Peer interface {
	Notify(method string, params any) error
}

// Service is a set of methods bound to one instance of a program, with the
// resources it holds for that instance (timers, sockets, streams). The host
// makes one per instance and closes it when the instance ends, whatever the
// way it ends.
type Service interface {
	// Methods gives the handlers by method name.
	Methods() map[string]Handler
	// Close releases what the service holds for the instance.
	Close() error
}

// Ordered is a Service some of whose methods neither block nor call the
// plugin, and must take effect in the order their lines came (a cap
// refuses the request past it, not whichever ran last): the connection
// serves those in order (jsonrpc.Options.InOrder).
type Ordered interface {
	InOrder() []string
}
