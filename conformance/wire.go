package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
)

// requestServer serves what the program asks of the host; a notification's
// result is ignored.
type requestServer func(ctx context.Context, m *jsonrpc.Message) (any, error)

// wire is the bench's end of a program's stdin and stdout. Unlike
// jsonrpc.Conn it keeps what a host would forgive: the shape of each answer
// line, ids as they came, and every line that is not a message.
type wire struct {
	stdin io.Writer
	serve requestServer
	inbox *mailbox

	ctx    context.Context // ends the serving of requests at close
	cancel context.CancelFunc
	wg     sync.WaitGroup // the reader and the request servers
	done   chan struct{}  // closed when the reader returned

	writeMu sync.Mutex // one line at a time on stdin

	mu       sync.Mutex
	sent     map[string]bool // ids of the bench's calls, by exact text
	badLines []string        // excerpts of lines that are not messages
	quiet    *[]string       // while listening for silence, what came
	// badInQuiet is set when a line that is not JSON came while listening
	// for silence: it is stdout's fault, which the quiet check follows from.
	badInQuiet bool
	// nullRefusals counts the refusals with id null the bench wrote (to
	// lines that were not messages); replies holds the error responses
	// with id null the program sent back to them, as many at most.
	nullRefusals int
	replies      []string
	seen         int // lines read, blank ones aside
}

// newWire opens the wire on the program's stdin; start reads its stdout,
// once what serves its requests is bound to the wire.
func newWire(stdin io.Writer, serve requestServer) *wire {
	ctx, cancel := context.WithCancel(context.Background())
	return &wire{stdin: stdin, serve: serve, inbox: newMailbox(), ctx: ctx, cancel: cancel,
		sent: map[string]bool{}, done: make(chan struct{})}
}

// start reads the program's stdout.
func (w *wire) start(stdout io.Reader) {
	w.wg.Add(1)
	go w.read(stdout)
}

// Notify sends a notification to the program: the services' peer
// (timer/fired, net/chunk, ws/message), as the host's connection is.
func (w *wire) Notify(method string, params any) error {
	return w.writeJSON(notification(method, params))
}

// close stops serving requests and waits for the reader, which ends when
// the program's stdout is closed.
func (w *wire) close() {
	w.cancel()
	w.wg.Wait()
}

func (w *wire) read(stdout io.Reader) {
	defer w.wg.Done()
	defer close(w.done)
	defer w.inbox.end()
	lines := jsonrpc.NewLineReader(stdout, 0)
	for {
		line, tooLong, err := lines.Next()
		switch {
		case tooLong:
			w.noteBad("a line past the 8 MiB limit: "+string(line), false)
			w.countLine(1)
			w.answerLine(false, nil, []*jsonrpc.Message{errorAnswer(jsonrpc.ID{}, jsonrpc.ErrParse)})
		case len(line) > 0:
			w.takeLine(line)
		}
		if err != nil {
			return
		}
	}
}

// takeLine sorts one line: answers go to the inbox, requests are served,
// and what is not a message is noted and answered as a host would.
func (w *wire) takeLine(line []byte) {
	decoded := jsonrpc.DecodeLine(line)
	var answers, requests, refusals []*jsonrpc.Message
	nulls := 0
	for _, item := range decoded.Items {
		switch {
		case item.Err != nil:
			refusals = append(refusals, errorAnswer(item.ErrID, item.Err))
			if item.ErrID.IsZero() {
				nulls++
			}
		case item.Msg.IsResponse() && w.claimReply(item.Msg, line):
		case item.Msg.IsResponse():
			answers = append(answers, item.Msg)
		default:
			requests = append(requests, item.Msg)
		}
	}
	w.countLine(nulls)
	if len(refusals) > 0 {
		w.noteBad(excerpt(line), json.Valid(line))
	} else if len(answers) > 0 && w.noteQuiet(line, answers) {
		return
	}
	if len(answers) > 0 {
		w.inbox.put(received{batch: decoded.Batch, answers: answers})
	}
	if len(requests)+len(refusals) > 0 {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			w.answerLine(decoded.Batch, requests, refusals)
		}()
	}
}

// noteBad records a line that is not JSON-RPC. While the bench listens for
// silence, JSON that is not a message (such as []) is claimed as the
// program's answer to that batch; a line that is not JSON at all stays
// stdout's, whenever it comes.
func (w *wire) noteBad(text string, isJSON bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.quiet != nil && isJSON {
		*w.quiet = append(*w.quiet, text)
		return
	}
	if w.quiet != nil {
		w.badInQuiet = true
	}
	w.badLines = append(w.badLines, text)
}

// countLine counts a line read and the refusals with id null the bench
// is about to write for it, before they are written, so that a reply to
// them is known as such when it comes.
func (w *wire) countLine(nullRefusals int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen++
	w.nullRefusals += nullRefusals
}

// claimReply takes an error response with id null as the program's reply
// to a refusal of the bench, when one is still unanswered: it answers no
// call, and is the fault of the line the bench refused, not of the check
// waiting at that time.
func (w *wire) claimReply(m *jsonrpc.Message, line []byte) bool {
	if !m.ID.IsZero() || m.Error == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.replies) >= w.nullRefusals {
		return false
	}
	w.replies = append(w.replies, excerpt(line))
	return true
}

// noteQuiet claims an answer line that came while listening for silence,
// unless it only answers calls the bench made before (a late answer).
func (w *wire) noteQuiet(line []byte, answers []*jsonrpc.Message) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.quiet == nil {
		return false
	}
	for _, a := range answers {
		if !w.sent[a.ID.String()] {
			*w.quiet = append(*w.quiet, excerpt(line))
			return true
		}
	}
	return false
}

// answerLine serves the requests of one line and writes their answers,
// with the refusals of its invalid members, as one line: an array for a
// batch. Notifications get no answer.
func (w *wire) answerLine(batch bool, requests, refusals []*jsonrpc.Message) {
	out := refusals
	for _, m := range requests {
		result, err := w.serve(w.ctx, m)
		if m.IsRequest() {
			out = append(out, answerOf(m.ID, result, err))
		}
	}
	if len(out) == 0 {
		return
	}
	if batch {
		w.writeJSON(out)
		return
	}
	for _, a := range out {
		w.writeJSON(a)
	}
}

// writeJSON writes v as one line on the program's stdin.
func (w *wire) writeJSON(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return w.writeLines(data)
}

// writeLines writes one or more lines in a single write, so that a program
// reading its stdin gets them together.
func (w *wire) writeLines(lines ...[]byte) error {
	var buf []byte
	for _, l := range lines {
		buf = append(append(buf, l...), '\n')
	}
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	_, err := w.stdin.Write(buf)
	return err
}

// markSent records the ids of calls the bench writes.
func (w *wire) markSent(ids ...string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, id := range ids {
		w.sent[id] = true
	}
}

// listenQuietly starts claiming every answer and every line of JSON that
// is not a message; the returned function stops it and returns what came,
// and whether a line that is not JSON came meanwhile.
func (w *wire) listenQuietly() func() ([]string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	heard := []string{}
	w.quiet = &heard
	w.badInQuiet = false
	return func() ([]string, bool) {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.quiet = nil
		return heard, w.badInQuiet
	}
}

// bad returns the lines seen so far that were not JSON-RPC messages.
func (w *wire) bad() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.badLines...)
}

// repliesToRefusals returns the error responses the program sent back to
// the bench's refusals of its lines.
func (w *wire) repliesToRefusals() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.replies...)
}

// linesSeen counts the lines the program wrote so far.
func (w *wire) linesSeen() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seen
}

// answerOf builds the answer to a request from what serving it returned.
func answerOf(id jsonrpc.ID, result any, err error) *jsonrpc.Message {
	if err != nil {
		var wireErr *jsonrpc.Error
		if !errors.As(err, &wireErr) {
			wireErr = jsonrpc.NewError(jsonrpc.ErrInternal.Code, err.Error())
		}
		return errorAnswer(id, wireErr)
	}
	raw, err := json.Marshal(result)
	if err != nil {
		return errorAnswer(id, jsonrpc.NewError(jsonrpc.ErrInternal.Code, err.Error()))
	}
	return &jsonrpc.Message{ID: id, Result: raw}
}

func errorAnswer(id jsonrpc.ID, e *jsonrpc.Error) *jsonrpc.Message {
	return &jsonrpc.Message{ID: id, Error: e}
}

// excerptLen bounds a line quoted in a report.
const excerptLen = jsonrpc.ExcerptLen

func excerpt(line []byte) string {
	if len(line) > excerptLen {
		return string(line[:excerptLen]) + "…"
	}
	return string(line)
}

// wasSent reports whether the bench wrote a call with this id.
func (w *wire) wasSent(id string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sent[id]
}

// readerDone is closed once the program's stdout ended and was read whole.
func (w *wire) readerDone() <-chan struct{} { return w.done }
