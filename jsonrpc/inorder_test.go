package jsonrpc

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// Requests of a method served in order take effect in the order of their
// lines, alone on their lines and in a batch, whatever the scheduler does:
// a cap counted by their handler refuses the one past it.
func TestInOrderMethodsTakeEffectInLineOrder(t *testing.T) {
	const n = 200
	var mu sync.Mutex
	var seen []string
	opts := Options{
		InOrder: func(method string) bool { return method == "take" },
		Handle: func(_ context.Context, m *Message) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, m.ID.String())
			return nil, nil
		},
	}
	p := newPeer(t, opts)
	var want []string
	for i := range n {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"take"}`, i))
		want = append(want, fmt.Sprint(i))
	}
	var batch []string
	for i := n; i < 2*n; i++ {
		batch = append(batch, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"take"}`, i))
		want = append(want, fmt.Sprint(i))
	}
	p.send("[" + strings.Join(batch, ",") + "]")
	for range n {
		p.next()
	}
	p.next() // the batch's answer
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(seen, " "); got != strings.Join(want, " ") {
		t.Errorf("served in the order\n%s\nwant the lines' order", got)
	}
}

// A notification of a method served in order has taken effect before the
// next line is served: a request after it finds what it did, every time.
func TestInOrderNotificationIsServedBeforeTheNextLine(t *testing.T) {
	const n = 200
	var mu sync.Mutex
	noted := 0
	opts := Options{
		InOrder: func(method string) bool { return method == "note" },
		Handle: func(_ context.Context, m *Message) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			if m.Method == "note" {
				noted++
				return nil, nil
			}
			return noted, nil
		},
	}
	p := newPeer(t, opts)
	for i := range n {
		p.send(`{"jsonrpc":"2.0","method":"note"}`)
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"count"}`, i))
		want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":%d}`, i, i+1)
		if got := p.next(); got != want {
			t.Fatalf("request %d: %s, want %s", i, got, want)
		}
	}
}
