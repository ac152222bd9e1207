package jsonrpc

import (
	"sync"
)

// answer runs the handler for a request and builds its response.
func (c *Conn) answer(m *Message) Message {
	if c.opts.Handle == nil {
		return Message{ID: m.ID, Error: ErrMethodNotFound}
	}
	result, err := c.opts.Handle(c.serveCtx, m)
	if err != nil {
		return Message{ID: m.ID, Error: wireError(err)}
	}
	raw, err := marshalValue(result)
	if err != nil {
		return Message{ID: m.ID, Error: wireError(err)}
	}
	return Message{ID: m.ID, Result: raw}
}

// serveBatch routes the members of a batch from the peer and answers its
// requests and invalid members with one array once all are served.
// Responses in it (the peer answering our batch) go to their calls.
func (c *Conn) serveBatch(items []Item) {
	reply := &batchReply{conn: c}
	var requests []*Message
	for _, item := range items {
		switch m := item.Msg; {
		case m == nil:
			reply.answers = append(reply.answers, &Message{ID: item.ErrID, Error: item.Err})
		case m.IsResponse():
			c.deliver(m)
		case m.IsNotification():
			c.notes.push(m, c.opts.Handle != nil)
		default:
			requests = append(requests, m)
		}
	}
	reply.waiting = len(requests)
	if reply.waiting == 0 {
		reply.send()
		return
	}
	for _, m := range requests {
		c.serving.Go(func() {
			answer := c.answer(m)
			reply.add(&answer)
		})
	}
}

// batchReply gathers the answers to one batch from the peer.
type batchReply struct {
	conn    *Conn
	mu      sync.Mutex
	answers []*Message
	waiting int // requests not yet answered
}

// add records one answer and sends the array after the last one.
func (b *batchReply) add(m *Message) {
	b.mu.Lock()
	b.answers = append(b.answers, m)
	b.waiting--
	last := b.waiting == 0
	b.mu.Unlock()
	if last {
		b.send()
	}
}

// send writes the answers as one array; a batch of notifications only
// gets nothing.
func (b *batchReply) send() {
	if len(b.answers) == 0 {
		return
	}
	if err := b.conn.out.writeArray(b.answers); err != nil {
		b.conn.sendFailed(err)
	}
}
