package net

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/escouade-dev/escouade-plugin/protocol"
	"github.com/escouade-dev/escouade-plugin/vocab"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
	"golang.org/x/sync/semaphore"
)

// The sizes that keep what net/fetch reads in bounds.
const (
	// MaxFetchBytes is the largest body a net/fetch answer carries
	// (protocol.MaxFetchBytes): room for the headers (MaxHeaderBytes,
	// escaped) in one line. A larger body comes through net/stream, up to
	// limits.netMaxBytes.
	MaxFetchBytes = protocol.MaxFetchBytes
	// MaxHeaderBytes bounds the headers of an answer as the server sends
	// them.
	MaxHeaderBytes = 256 << 10
	// MaxBytesInFlight is the most body bytes the fetches of one instance
	// hold at once, read and not yet answered: 4 bodies of MaxFetchBytes.
	MaxBytesInFlight = protocol.NetFlightBytes
)

// errNoRoom is the error of a fetch that holds bytes and finds no room
// for more; errWaitedForRoom that of one that waited for room until its
// context ended.
var (
	errNoRoom        = errors.New("no room among the bytes in flight")
	errWaitedForRoom = errors.New("waited for room among the bytes in flight")
)

// noRoomSentence says why a fetch found no room, and what to do.
func noRoomSentence() string {
	return fmt.Sprintf("the fetches under way hold %d MiB of bodies, the most a plugin may hold at once: fetch fewer at a time, or read large bodies through %s",
		MaxBytesInFlight>>20, vocab.MethodNetStream)
}

// held is what one fetch holds of its instance's bytes in flight. A fetch
// that holds nothing waits for room (within its time limit); one that
// holds some never waits, it fails: two fetches each holding half and
// waiting for the other's could then only end at their time limits.
type held struct {
	sem *semaphore.Weighted
	n   int64
	// waits, when set, is told when the fetch starts to wait (tests).
	waits func()
}

// take gets n more bytes.
func (h *held) take(ctx context.Context, n int64) error {
	if h.sem.TryAcquire(n) {
		h.n += n
		return nil
	}
	if h.n > 0 {
		return errNoRoom
	}
	if h.waits != nil {
		h.waits()
	}
	if err := h.sem.Acquire(ctx, n); err != nil {
		return fmt.Errorf("%w: %w", errWaitedForRoom, err)
	}
	h.n = n
	return nil
}

// give gives back n of the bytes held, unused.
func (h *held) give(n int64) {
	h.sem.Release(n)
	h.n -= n
}

// release gives back everything held.
func (h *held) release() {
	if h.n > 0 {
		h.sem.Release(h.n)
		h.n = 0
	}
}

// encodeFetchBody is encodeBody, with one more rule: text whose JSON
// spelling could pass the room of a body in the answer (control
// characters and the HTML characters encoding/json escapes take six
// bytes each) goes as base64, so that any body of MaxFetchBytes fits.
func encodeFetchBody(data []byte) (string, proto.BodyEncoding) {
	if utf8.Valid(data) && jsonTextLen(data) <= base64.StdEncoding.EncodedLen(MaxFetchBytes) {
		return string(data), proto.BodyEncodingUTF8
	}
	return base64.StdEncoding.EncodeToString(data), proto.BodyEncodingBase64
}

// jsonTextLen bounds the length of valid UTF-8 text as a JSON string of
// encoding/json, its quotes left out.
func jsonTextLen(text []byte) int {
	n := 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			n += 2
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			n += 6
		case c == 0xe2 && i+2 < len(text) && text[i+1] == 0x80 && (text[i+2] == 0xa8 || text[i+2] == 0xa9):
			n += 6 // U+2028, U+2029
			i += 2
		default:
			n++
		}
	}
	return n
}
