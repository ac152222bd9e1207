package services

import "fmt"

// JSON-RPC error codes of the refusals this package makes (PROTOCOL §5).
const (
	CodeMethodNotFound = -32601 // not a method served to a process plugin
	CodeInvalidParams  = -32602 // params that do not hold
	CodeNotYours       = -32001 // a secret that is not the plugin's
	CodeKeychain       = -32002 // the keychain is out of reach
	CodeForbidden      = -32003 // what the plugin may not reach
	CodeFailed         = -32004 // a request that fails on the way
	CodeMissing        = -32005 // a missing file
)

// Error is a refusal with its JSON-RPC code; the host turns it into the wire
// error.
type Error struct {
	Code int64
	// Message is a short English sentence for the wire error's message.
	Message string
	// Reason is the detail for the journal and the wire error's data.reason.
	Reason string
}

// Error returns the message and, when there is one, the reason.
func (e *Error) Error() string {
	if e.Reason == "" {
		return e.Message
	}
	return fmt.Sprintf("%s (%s)", e.Message, e.Reason)
}

// Is reports whether target is an *Error with the same code, so callers can
// write errors.Is(err, &services.Error{Code: services.CodeMissing}).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

func refuse(code int64, message, format string, args ...any) *Error {
	return &Error{Code: code, Message: message, Reason: fmt.Sprintf(format, args...)}
}

func invalidParams(format string, args ...any) *Error {
	reason := fmt.Sprintf(format, args...)
	return &Error{Code: CodeInvalidParams, Message: "Invalid params: " + reason + ".", Reason: reason}
}
