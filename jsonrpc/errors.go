package jsonrpc

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/escouade-dev/escouade-plugin/vocab"
)

// Error is the one error type of the wire: the error member of a response.
// errors.Is matches two *Error values by code alone, so a peer's answer
// matches the sentinel of its code whatever its message says.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// The codes of JSON-RPC 2.0, with its messages, from the protocol's
// vocabulary.
var (
	ErrParse          = NewError(vocab.CodeParseError, vocab.MessageParseError)
	ErrInvalidRequest = NewError(vocab.CodeInvalidRequest, vocab.MessageInvalidRequest)
	ErrMethodNotFound = NewError(vocab.CodeMethodNotFound, vocab.MessageMethodNotFound)
	ErrInvalidParams  = NewError(vocab.CodeInvalidParams, vocab.MessageInvalidParams)
	ErrInternal       = NewError(vocab.CodeInternalError, vocab.MessageInternalError)
)

// The codes Escouade adds (docs/protocol.md#7-what-the-host-serves-a-process),
// with the vocabulary's messages, short English sentences; WithReason adds
// the details.
var (
	// ErrNotYours refuses a secret that is not the plugin's.
	ErrNotYours = NewError(vocab.CodeNotYours, vocab.MessageNotYours)
	// ErrKeychain reports a keychain out of reach.
	ErrKeychain = NewError(vocab.CodeKeychain, vocab.MessageKeychain)
	// ErrForbidden refuses what the plugin may not reach: a host, a file,
	// a program.
	ErrForbidden = NewError(vocab.CodeForbidden, vocab.MessageForbidden)
	// ErrFailed reports a request that failed on the way: a timeout, an
	// answer too large, a host out of reach, a file that is not text.
	ErrFailed = NewError(vocab.CodeFailed, vocab.MessageFailed)
	// ErrMissing reports a missing file.
	ErrMissing = NewError(vocab.CodeMissing, vocab.MessageMissing)
)

// NewError returns an error with the code and message.
func NewError(code int64, message string) *Error {
	return &Error{Code: code, Message: message}
}

// Error returns the message, which is what a wrapping error shows:
// fmt.Errorf("%w: %v", ErrInvalidParams, err) reads "Invalid params: …".
func (e *Error) Error() string {
	if e.Message == "" {
		return "JSON-RPC error " + strconv.FormatInt(e.Code, 10)
	}
	return e.Message
}

// Is reports whether target is an *Error with the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t != nil && e != nil && t.Code == e.Code
}

// WithReason returns a copy of e whose data is {"reason": reason}, leaving
// e (often a shared sentinel) untouched.
func (e *Error) WithReason(reason string) *Error {
	data, _ := json.Marshal(struct {
		Reason string `json:"reason"`
	}{reason}) // a string field always marshals
	return &Error{Code: e.Code, Message: e.Message, Data: data}
}

// Reason returns the reason of an error made by WithReason (or sent by a
// peer in the same shape), or "" when it has none.
func (e *Error) Reason() string {
	var data struct {
		Reason string `json:"reason"`
	}
	if len(e.Data) == 0 || json.Unmarshal(e.Data, &data) != nil {
		return ""
	}
	return data.Reason
}

// wireError returns what to send for an error a handler returned: the
// *Error it is, or its code and data with the wrapping text as message, or
// ErrInternal with the text of any other error.
func wireError(err error) *Error {
	var e *Error
	if !errors.As(err, &e) || e == nil {
		return &Error{Code: ErrInternal.Code, Message: err.Error()}
	}
	if e == err {
		return e
	}
	return &Error{Code: e.Code, Message: err.Error(), Data: e.Data}
}
