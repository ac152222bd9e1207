package services

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/escouade-dev/escouade-plugin/vocab"
)

// Reply answers a request whose handler left its answer for later, with a
// result or a refusal as the handler would have returned them. It is
// called once; later calls are ignored.
type Reply func(result any, err error)

// ErrAnswerLater is what a handler returns once it took Later: the answer
// goes through the Reply, and the handler's goroutine and request slot are
// given back now (jsonrpc.ErrAsyncResponse on the wire's side).
var ErrAnswerLater = errors.New("services: the answer is given later")

// later is what Serve puts in a request's context for Later.
type later struct {
	reply Reply
	taken bool
}

type laterKey struct{}

// Later takes the answer of the request ctx serves out of its handler: the
// handler returns ErrAnswerLater and calls reply once, from any goroutine,
// when the answer is known. A service that waits on something slow (a
// program, a fetch) answers so, so that the connection serves the other
// requests meanwhile. Outside Serve (no request to answer) it panics: a
// handler is only ever run through Serve or Call.
func Later(ctx context.Context) Reply {
	l, ok := ctx.Value(laterKey{}).(*later)
	if !ok {
		panic("services.Later outside services.Serve")
	}
	l.taken = true
	return l.reply
}

// Serve runs h for one request. A handler that answers now returns its
// result and error with now set; one that took Later returns now false, and
// reply gets the answer when it comes. A handler that returns
// ErrAnswerLater without taking Later is a bug of the handler, answered as
// an internal failure now.
func Serve(ctx context.Context, h Handler, params json.RawMessage, reply Reply) (result any, err error, now bool) {
	l := &later{reply: once(reply)}
	result, err = h(context.WithValue(ctx, laterKey{}, l), params)
	if errors.Is(err, ErrAnswerLater) {
		if l.taken {
			return nil, nil, false
		}
		return nil, errors.New("the handler left its answer for later without a reply"), true
	}
	return result, err, true
}

// Call runs h and waits for its answer, given now or later: for a caller
// that holds a handler alone (a test, the bench) and has a goroutine to
// spare for the wait. It stops waiting when ctx ends.
func Call(ctx context.Context, h Handler, params json.RawMessage) (any, error) {
	type answer struct {
		result any
		err    error
	}
	answers := make(chan answer, 1)
	result, err, now := Serve(ctx, h, params, func(result any, err error) { answers <- answer{result, err} })
	if now {
		return result, err
	}
	select {
	case a := <-answers:
		return a.result, a.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// AnswerLater is h answered later on a goroutine of the service's own:
// the params are checked and the work done there, and the connection that
// read the request is free meanwhile. It suits a handler that waits (a
// program running, a fetch on the way) and holds nothing the connection
// must keep.
//
// The params are copied: the connection may reuse what it read once the
// handler returned. A panic of h answers -32603 naming it, as a handler's
// panic on the connection's goroutine does.
func AnswerLater(h Handler) Handler {
	return func(ctx context.Context, params json.RawMessage) (any, error) {
		reply := Later(ctx)
		params = bytes.Clone(params)
		go func() {
			defer func() {
				if v := recover(); v != nil {
					reply(nil, &Error{Code: CodeInternalError, Message: vocab.MessageInternalError,
						Reason: fmt.Sprintf("the host failed serving it: %v", v)})
				}
			}()
			reply(h(ctx, params))
		}()
		return nil, ErrAnswerLater
	}
}

// once makes reply answer at most once.
func once(reply Reply) Reply {
	var o sync.Once
	return func(result any, err error) { o.Do(func() { reply(result, err) }) }
}
