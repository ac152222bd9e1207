package host

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/vocab"
)

// requestKind tells what the app sends: a call, a notification or a batch.
type requestKind int

const (
	kindCall requestKind = iota
	kindNotify
	kindBatch
)

// request is one message from the app on its way to the program. It waits
// in the queue while the program starts, then is sent in order.
type request struct {
	kind   requestKind
	method string
	params any
	batch  []jsonrpc.BatchCall
	agent  string // the agent of an agent/attach
	// ready is closed once, when the outcomes are known (outs: a default
	// answer) or when the request was written to the program (wait then
	// waits for its answers, on the caller's goroutine: no hand-off).
	ready chan struct{}
	outs  []Outcome
	wait  func() []Outcome
}

func newRequest(kind requestKind, method string, params any) *request {
	return &request{kind: kind, method: method, params: params, ready: make(chan struct{})}
}

// finish gives every answer of r the same default outcome.
func (r *request) finish(o Outcome) {
	r.outs = r.defaults(o)
	close(r.ready)
}

// defaults is o for every answer r expects: one for a call, one per batch
// entry (a notification's entry stays zero), none for a notification.
func (r *request) defaults(o Outcome) []Outcome {
	switch r.kind {
	case kindCall:
		return []Outcome{o}
	case kindBatch:
		outs := make([]Outcome, len(r.batch))
		for i, c := range r.batch {
			if !c.Notify {
				outs[i] = o
			}
		}
		return outs
	}
	return nil
}

// written records that r went to the program; wait gives its answers.
func (r *request) written(wait func() []Outcome) {
	r.wait = wait
	close(r.ready)
}

// result waits for r's outcomes. ctx bounds the wait for r to be sent; once
// sent, the delay of its method bounds the wait for the answer.
func (r *request) result(ctx context.Context) []Outcome {
	select {
	case <-r.ready:
	case <-ctx.Done():
		return r.defaults(defaultOutcome(TimedOut, fmt.Sprintf("%s: %v", r.label(), ctx.Err())))
	}
	if r.wait != nil {
		return r.wait()
	}
	return r.outs
}

// label names r in journal lines.
func (r *request) label() string {
	if r.kind == kindBatch {
		return "batch of " + strconv.Itoa(len(r.batch))
	}
	return r.method
}

// queue is the bounded FIFO of requests waiting for a program to be ready.
// It is guarded by the plugin's mutex.
type queue struct {
	items []*request
	max   int
}

// push appends r and returns the oldest request it had to drop, if any.
func (q *queue) push(r *request) (dropped *request) {
	if len(q.items) >= q.max {
		dropped = q.items[0]
		q.items[0] = nil
		q.items = q.items[1:]
	}
	q.items = append(q.items, r)
	return dropped
}

func (q *queue) pop() (*request, bool) {
	if len(q.items) == 0 {
		return nil, false
	}
	r := q.items[0]
	q.items[0] = nil
	q.items = q.items[1:]
	return r, true
}

// takeAttaches removes the agent/attach requests of those agents from the
// queue, by agent.
func (q *queue) takeAttaches(agents map[string]bool) map[string][]*request {
	taken := map[string][]*request{}
	kept := q.items[:0]
	for _, r := range q.items {
		if r.kind == kindCall && r.method == vocab.MethodAgentAttach && agents[r.agent] {
			taken[r.agent] = append(taken[r.agent], r)
			continue
		}
		kept = append(kept, r)
	}
	clear(q.items[len(kept):])
	q.items = kept
	return taken
}

// drain empties the queue, returning what it held.
func (q *queue) drain() []*request {
	items := q.items
	q.items = nil
	return items
}

// outcomeOf turns a wire result into an Outcome.
func outcomeOf(res json.RawMessage, err error) Outcome {
	if err == nil {
		return Outcome{Result: res}
	}
	if e, ok := err.(*jsonrpc.Error); ok {
		return Outcome{Error: e}
	}
	return defaultOutcome(Crashed, err.Error())
}
