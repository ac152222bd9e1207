package services

import (
	"fmt"

	"github.com/escouade-dev/escouade-plugin/vocab"
)

// JSON-RPC error codes of the refusals this package makes (docs/protocol.md#7-what-the-host-serves-a-process),
// from the generated vocabulary.
const (
	CodeMethodNotFound = vocab.CodeMethodNotFound // not a method served to this program
	CodeInvalidParams  = vocab.CodeInvalidParams  // params that do not hold
	CodeNotYours       = vocab.CodeNotYours       // a secret that is not the plugin's
	CodeKeychain       = vocab.CodeKeychain       // the keychain is out of reach
	CodeForbidden      = vocab.CodeForbidden      // what the plugin may not reach
	CodeFailed         = vocab.CodeFailed         // a request that fails on the way
	CodeMissing        = vocab.CodeMissing        // a missing file
	CodeInternalError  = vocab.CodeInternalError  // the host failed serving it
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
	return &Error{Code: CodeInvalidParams, Message: vocab.MessageInvalidParams + ": " + reason + ".", Reason: reason}
}
