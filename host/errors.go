package host

import "errors"

// The host's errors are one family, as are those of its transports
// (host/process, host/wasm): each is a sentinel a caller tests with
// errors.Is, declared once; its text is a lowercase clause that reads
// inside a journal line or a console answer ("restart: the plugin is
// disabled: enable it first", "could not start: program not found: …"),
// with no package prefix, what is particular after a colon or around the
// clause. Texts the protocol fixes (the default answers' reasons, the
// journal's) are kept word for word.
var (
	// ErrClosed is returned by Add after Close.
	ErrClosed = errors.New("the host is closed")
	// ErrAlreadyAdded is returned by Add for a plugin id the host has.
	ErrAlreadyAdded = errors.New("is already added")
	// ErrDisabled is returned by Restart on a disabled plugin.
	ErrDisabled = errors.New("the plugin is disabled: enable it first")
	// ErrNoProgram is returned by Restart for a plugin without run.
	ErrNoProgram = errors.New("has no program to start")
	// ErrNoActivation is returned by Restart for a plugin whose program
	// never starts (docs/protocol.md#2-starting-the-program).
	ErrNoActivation = errors.New("is not started: it has no activation")
)
