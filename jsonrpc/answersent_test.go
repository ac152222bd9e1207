package jsonrpc

import (
	"context"
	"testing"
)

// streamResult is an answer whose AnswerSent writes a notification, as a
// stream's first chunk follows the answer that names the stream.
type streamResult struct {
	Stream int `json:"stream"`
	conn   *Conn
}

func (r streamResult) AnswerSent() { _ = r.conn.Notify("chunk", []int{r.Stream}) }

// streamPeer answers "stream" with a streamResult, "later" later.
func streamPeer(t *testing.T) (*peer, chan ID) {
	var p *peer
	later := make(chan ID, 10)
	echo := testHandler(make(chan *Message, 10))
	p = newPeer(t, Options{Handle: func(ctx context.Context, m *Message) (any, error) {
		switch m.Method {
		case "later":
			later <- m.ID
			return nil, ErrAsyncResponse
		case "stream":
			return streamResult{Stream: 7, conn: p.conn}, nil
		}
		return echo(ctx, m)
	}})
	return p, later
}

// What an answer's AnswerSent writes comes after the answer on the wire:
// alone on its line, answered later through Respond, and in a batch whose
// answer waits for a member answered later.
func TestAnswerSentFollowsTheWrittenAnswer(t *testing.T) {
	const chunk = `{"jsonrpc":"2.0","method":"chunk","params":[7]}`
	t.Run("alone", func(t *testing.T) {
		p, _ := streamPeer(t)
		p.send(`{"jsonrpc":"2.0","id":1,"method":"stream"}`)
		if got, want := p.next(), `{"jsonrpc":"2.0","id":1,"result":{"stream":7}}`; got != want {
			t.Fatalf("first line %s, want the answer %s", got, want)
		}
		if got := p.next(); got != chunk {
			t.Errorf("second line %s, want %s", got, chunk)
		}
	})
	t.Run("answered later", func(t *testing.T) {
		p, later := streamPeer(t)
		p.send(`{"jsonrpc":"2.0","id":2,"method":"later"}`)
		id := <-later
		if err := p.conn.Respond(id, streamResult{Stream: 7, conn: p.conn}, nil); err != nil {
			t.Fatal(err)
		}
		if got, want := p.next(), `{"jsonrpc":"2.0","id":2,"result":{"stream":7}}`; got != want {
			t.Fatalf("first line %s, want the answer %s", got, want)
		}
		if got := p.next(); got != chunk {
			t.Errorf("second line %s, want %s", got, chunk)
		}
	})
	t.Run("in a batch", func(t *testing.T) {
		p, later := streamPeer(t)
		p.send(`[{"jsonrpc":"2.0","id":3,"method":"stream"},{"jsonrpc":"2.0","id":4,"method":"later"}]`)
		id := <-later
		p.sync() // the stream's member is answered; the batch's answer waits, and so does the chunk
		if err := p.conn.Respond(id, "done", nil); err != nil {
			t.Fatal(err)
		}
		want := canonical(`[{"jsonrpc":"2.0","id":3,"result":{"stream":7}},{"jsonrpc":"2.0","id":4,"result":"done"}]`)
		if got := canonical(p.next()); got != want {
			t.Fatalf("first line %s, want the batch's answer %s", got, want)
		}
		if got := p.next(); got != chunk {
			t.Errorf("second line %s, want %s", got, chunk)
		}
	})
}
