package jsonrpc

// EventKind names what a connection reports to its owner for the journal.
type EventKind int

// The events of a connection.
const (
	// EventBadLine: a line that is not JSON, or holds something that is not
	// a JSON-RPC message; it was answered with -32700 or -32600.
	EventBadLine EventKind = iota + 1
	// EventTooLong: a line over Options.MaxLine, answered with -32700 and
	// skipped up to its newline.
	EventTooLong
	// EventLate: an answer to a call that had already stopped waiting.
	EventLate
	// EventUnknownResponse: an answer whose id matches no call.
	EventUnknownResponse
	// EventPeerError: an error answer with "id": null, the peer's way of
	// saying it could not read something we sent.
	EventPeerError
	// EventHandlerPanic: a handler panicked; a request was answered -32603.
	// Text is the panic's value, Stack the goroutine's stack.
	EventHandlerPanic
	// EventBound: a bound on what the peer makes the connection hold
	// stopped the reader until it is back under (bounds.go). Text names
	// it, e.g. "reading paused: 64 requests served at once, the limit";
	// it is reported the first time, then each time its count doubles.
	EventBound
	// EventAnswerTooLong: an answer that would pass the line limit was
	// replaced by -32004 naming the limit (Method and ID say which), or a
	// batch whose answer could not fit was refused whole. Text is the
	// error's message.
	EventAnswerTooLong
)

// String returns the name of the kind, for logs.
func (k EventKind) String() string {
	switch k {
	case EventBadLine:
		return "bad line"
	case EventTooLong:
		return "line too long"
	case EventLate:
		return "late answer"
	case EventUnknownResponse:
		return "unknown response"
	case EventPeerError:
		return "peer error"
	case EventHandlerPanic:
		return "handler panic"
	case EventBound:
		return "bound"
	case EventAnswerTooLong:
		return "answer too long"
	}
	return "unknown event"
}

// Event is one thing worth a journal line.
type Event struct {
	Kind EventKind
	// Method is the method of the call a late answer belongs to, or of
	// the request of EventHandlerPanic and EventAnswerTooLong.
	Method string
	// ID is the id of the answer (EventLate, EventUnknownResponse,
	// EventAnswerTooLong) or of the request whose handler panicked.
	ID ID
	// Text is the first ExcerptLen bytes of the line (EventBadLine,
	// EventTooLong), or the peer's error message (EventPeerError). It is
	// cut at a byte count, not at a character.
	Text string
	// Err is the error the peer sent (EventPeerError, and
	// EventUnknownResponse or EventLate for an error answer).
	Err *Error
	// Stack is the stack of a handler that panicked (EventHandlerPanic).
	Stack string
}

// excerpt returns the first ExcerptLen bytes of line.
func excerpt(line []byte) string {
	return string(line[:min(ExcerptLen, len(line))])
}
