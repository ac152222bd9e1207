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
// and ends the connection, instead of blocking every sender for ever: on
// an OS pipe, which takes deadlines on Unix and none on Windows.
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

// The write timeout needs no deadline from the writer: an io.Pipe has none.
// The line fails once the timeout has passed, not before, and a call after
// it fails at once.
func TestWriteTimeoutOnAWriterWithoutDeadlines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, peerOut := io.Pipe()
		defer peerOut.Close()
		_, w := io.Pipe() // the peer never reads
		c := NewConn(r, w, Options{WriteTimeout: time.Second})
		defer c.Close()
		start := time.Now()
		err := c.Notify("stuck", nil)
		if !errors.Is(err, os.ErrDeadlineExceeded) || !strings.Contains(err.Error(), "took no line for 1s") {
			t.Fatalf("Notify = %v, want the peer named as taking no line", err)
		}
		if d := time.Since(start); d < time.Second || d > 3*time.Second/2 {
			t.Errorf("the write failed after %v, want between 1 s and 1.5 s", d)
		}
		if _, err := c.Call(context.Background(), "after", nil); !errors.Is(err, ErrClosed) {
			t.Errorf("a call after the failed write = %v, want ErrClosed", err)
		}
	})
}

// A peer slow to read each line, but within the timeout, is not cut off
// however long the writing lasts: the timeout is per line.
func TestWriteTimeoutIsPerLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, peerOut := io.Pipe()
		defer peerOut.Close()
		peerIn, w := io.Pipe()
		readerDone := make(chan struct{})
		go func() {
			defer close(readerDone)
			buf := make([]byte, 64*1024)
			for {
				time.Sleep(900 * time.Millisecond)
				if _, err := peerIn.Read(buf); err != nil {
					return
				}
			}
		}()
		c := NewConn(r, w, Options{WriteTimeout: time.Second})
		defer c.Close()
		for i := range 10 {
			if err := c.Notify("slow", i); err != nil {
				t.Fatalf("line %d: %v, want each line taken within the timeout to pass", i, err)
			}
		}
		peerIn.Close()
		<-readerDone
	})
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
