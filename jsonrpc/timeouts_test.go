package jsonrpc

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// A peer that stops reading its input fails the write after WriteTimeout
// and ends the connection, instead of blocking every sender for ever.
func TestWriteTimeoutEndsTheConnectionWhenThePeerStopsReading(t *testing.T) {
	peerIn, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer peerIn.Close() // never read: the pipe fills up
	r, peerOut := io.Pipe()
	defer peerOut.Close()
	c := NewConn(r, w, Options{WriteTimeout: 50 * time.Millisecond})
	defer c.Close()
	big := strings.Repeat("x", 1<<20)
	err = c.Notify("big", map[string]string{"x": big})
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Notify = %v, want a deadline error", err)
	}
	if _, err := c.Call(context.Background(), "after", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("a call after the failed write = %v, want ErrClosed", err)
	}
}

// Each call of a batch waits its own Timeout, counted from the write.
func TestBatchCallsKeepTheirOwnTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, peerOut := io.Pipe()
		peerIn, w := io.Pipe()
		go io.Copy(io.Discard, peerIn) // a peer that reads and never answers
		c := NewConn(r, w, Options{})
		start := time.Now()
		b := c.GoBatch(context.Background(), []BatchCall{
			{Method: "slow/default", Timeout: 5 * time.Second},
			{Method: "permissions/ask", Timeout: 500 * time.Millisecond},
		})
		results := b.Wait()
		if d := time.Since(start); d != 5*time.Second {
			t.Errorf("the batch ended after %v, want the longest timeout, 5 s", d)
		}
		for i, want := range []string{"slow/default", "permissions/ask"} {
			if err := results[i].Err; !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), want) {
				t.Errorf("outcome %d = %v, want %s past its deadline", i, err, want)
			}
		}
		c.Close()
		peerOut.Close()
		w.Close()
	})
}
