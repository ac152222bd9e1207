package jsonrpc

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// GoTimeout's delay is kept by the connection's timer: past it, Wait
// ends with context.DeadlineExceeded, and the late answer is reported.
func TestGoTimeoutExpiresOnTheConnectionsTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, peerOut := io.Pipe()
		peerIn, w := io.Pipe()
		lines := make(chan string, 10)
		go func() {
			in := NewLineReader(peerIn, 0)
			for {
				line, _, err := in.Next()
				if err != nil {
					return
				}
				lines <- string(line)
			}
		}()
		events := make(chan Event, 10)
		c := NewConn(r, w, Options{OnEvent: func(e Event) { events <- e }})
		ctx := context.Background()
		start := time.Now()
		slow := c.GoTimeout(ctx, "slow", nil, 5*time.Second)
		quick := c.GoTimeout(ctx, "quick", nil, 300*time.Millisecond)
		answered := c.GoTimeout(ctx, "answered", nil, 300*time.Millisecond)
		for range 3 {
			<-lines
		}
		io.WriteString(peerOut, `{"jsonrpc":"2.0","id":3,"result":"in time"}`+"\n")
		if res, err := answered.Wait(); err != nil || string(res) != `"in time"` {
			t.Errorf("answered call = %s, %v", res, err)
		}
		_, err := quick.Wait()
		if d := time.Since(start); d != 300*time.Millisecond || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "quick") {
			t.Errorf("quick ended after %v with %v, want 300ms and a deadline error naming it", d, err)
		}
		_, err = slow.Wait()
		if d := time.Since(start); d != 5*time.Second || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("slow ended after %v with %v, want 5s and a deadline error", d, err)
		}
		io.WriteString(peerOut, `{"jsonrpc":"2.0","id":2,"result":1}`+"\n")
		want := Event{Kind: EventLate, Method: "quick", ID: rawID("2")}
		if diff := cmp.Diff(want, <-events, idComparer); diff != "" {
			t.Errorf("event (-want +got):\n%s", diff)
		}
		c.Close()
		peerOut.Close()
		w.Close()
		c.Wait()
	})
}
