package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// An answer that would pass the write limit is replaced by -32004 naming
// the limit, and reported; it is never written as a longer line.
func TestAnswerPastTheLineLimitIsRefused(t *testing.T) {
	p := newPeer(t, Options{MaxWriteLine: 1024})
	big := strings.Repeat("x", 2000)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"echo","params":["` + big + `"]}`)
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32004,"message":"the answer would exceed the 1 KiB line limit"}}`
	if got := p.next(); got != want {
		t.Errorf("answer %s, want %s", got, want)
	}
	p.sync()
	wantEvents := []Event{{Kind: EventAnswerTooLong, Method: "echo", ID: rawID("1"), Text: "the answer would exceed the 1 KiB line limit"}}
	if diff := cmp.Diff(wantEvents, p.takeEvents(), idComparer); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// In a batch, the members whose answers would make the line pass the
// limit get -32004; the others keep their answers, and the line fits.
func TestBatchAnswerPastTheLineLimit(t *testing.T) {
	const limit = 1024
	p := newPeer(t, Options{MaxWriteLine: limit})
	member := `{"jsonrpc":"2.0","id":%d,"method":"echo","params":["` + strings.Repeat("y", 400) + `"]}`
	var members []string
	for id := range 3 {
		members = append(members, strings.Replace(member, "%d", string(rune('1'+id)), 1))
	}
	p.send("[" + strings.Join(members, ",") + "]")
	line := p.next()
	if len(line) > limit {
		t.Errorf("batch answer of %d bytes, past the limit of %d", len(line), limit)
	}
	var answers []Message
	if err := json.Unmarshal([]byte(line), &answers); err != nil {
		t.Fatalf("batch answer %s: %v", line, err)
	}
	refused := 0
	for _, a := range answers {
		if a.Error != nil && a.Error.Code == ErrFailed.Code && a.Error.Message == "the answer would exceed the 1 KiB line limit" {
			refused++
		}
	}
	if len(answers) != 3 || refused != 1 {
		t.Errorf("got %d answers, %d refused for their size; want 3 answers, 1 refused: %s", len(answers), refused, line)
	}
}

// A batch whose answer could not fit even with every request refused is
// refused whole, with one error, before any request is served.
func TestBatchTooLargeToAnswerIsRefusedWhole(t *testing.T) {
	p := newPeer(t, Options{MaxWriteLine: 300})
	p.send(`[{"jsonrpc":"2.0","id":1,"method":"note"},{"jsonrpc":"2.0","id":2,"method":"note"},{"jsonrpc":"2.0","id":3,"method":"note"}]`)
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32004,"message":"the answer would exceed the 300 bytes line limit"}}`
	if got := p.next(); got != want {
		t.Errorf("answer %s, want %s", got, want)
	}
	p.sync()
	if len(p.notes) != 0 {
		t.Errorf("%d requests of the refused batch were served", len(p.notes))
	}
	wantEvents := []Event{{Kind: EventAnswerTooLong, Text: "the answer would exceed the 300 bytes line limit: a batch of 3 requests refused"}}
	if diff := cmp.Diff(wantEvents, p.takeEvents(), idComparer); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// Our own lines past the limit are not sent; the calls fail naming it.
func TestOwnLinesPastTheLimitAreNotSent(t *testing.T) {
	p := newPeer(t, Options{MaxWriteLine: 1 << 10})
	big := strings.Repeat("z", 2000)
	ctx := context.Background()
	if _, err := p.conn.Call(ctx, "m", []string{big}); !errors.Is(err, ErrLineTooLong) || !strings.Contains(err.Error(), "1 KiB") {
		t.Errorf("Call = %v, want ErrLineTooLong naming 1 KiB", err)
	}
	if err := p.conn.Notify("m", []string{big}); !errors.Is(err, ErrLineTooLong) {
		t.Errorf("Notify = %v, want ErrLineTooLong", err)
	}
	results := p.conn.Batch(ctx, []BatchCall{{Method: "a", Params: []string{big}}, {Method: "b"}})
	for i, r := range results {
		if !errors.Is(r.Err, ErrLineTooLong) {
			t.Errorf("batch call %d = %v, want ErrLineTooLong", i, r.Err)
		}
	}
	p.sync() // nothing was written before the sync answer
	if p.conn.Ended() {
		t.Error("a refused line ended the connection")
	}
}
