package acp

import (
	"bytes"
	"encoding/json"
	"fmt"
)

type phase int

const (
	phaseIdle         phase = iota // before Start
	phaseInitializing              // initialize sent
	phaseOpening                   // session/new, load or resume sent
	phaseReady                     // the session is known
	phaseEnded                     // closed: nothing more is sent
)

// answerFunc handles the answer to one of the client's requests: result, or
// err when the agent answered an error.
type answerFunc func(result json.RawMessage, err *Error)

// Client is one ACP connection's state. It is not safe for concurrent use:
// the harness calls it from the goroutine that owns the agent.
type Client struct {
	opts  Options
	phase phase

	nextID  int64
	calls   map[string]answerFunc // by the id text of the client's requests
	handles handles               // the agent's requests and question cards waiting for the host

	agent    agentState
	session  sessionState
	turn     turnState
	tools    toolState
	stream   streamState
	question questionState
	// cursorTodos is the last to-do list of cursor/update_todos, which a
	// merge updates.
	cursorTodos []cursorTodo
	totals      Usage

	// replaying is set while an update replayed by session/load is handled.
	replaying bool

	// items and outs collect what one public call produces.
	items []Item
	outs  []Out
}

// NewClient makes a client; nothing is sent before Start.
func NewClient(opts Options) *Client {
	return &Client{
		opts:    opts,
		calls:   map[string]answerFunc{},
		handles: newHandles(),
		tools:   newToolState(),
	}
}

// Start gives the initialize request, the first line to write.
func (c *Client) Start() []Out {
	if c.phase != phaseIdle {
		return nil
	}
	c.phase = phaseInitializing
	c.call(methodInitialize, c.initializeParams(), c.onInitialize)
	_, outs := c.flush()
	return outs
}

// Feed takes one line of the agent's stdout. It never fails: a line that is
// not JSON-RPC becomes a notice, an unknown message an "unknown" item.
func (c *Client) Feed(line []byte) ([]Item, []Out) {
	line = bytes.TrimSpace(line)
	if c.phase == phaseEnded || len(line) == 0 {
		return nil, nil
	}
	if line[0] == '[' {
		c.feedBatch(line)
	} else {
		c.feedMessage(line)
	}
	return c.flush()
}

// Ended tells whether the client has closed: the harness stops the agent.
func (c *Client) Ended() bool { return c.phase == phaseEnded }

// Totals gives the tokens counted over all turns.
func (c *Client) Totals() Usage { return c.totals }

func (c *Client) feedBatch(line []byte) {
	var batch []json.RawMessage
	if err := json.Unmarshal(line, &batch); err != nil {
		c.emit(notice(garbageNotice(line, err)))
		return
	}
	for _, m := range batch {
		c.feedMessage(m)
	}
}

func (c *Client) feedMessage(raw []byte) {
	var m incoming
	if err := json.Unmarshal(raw, &m); err != nil {
		c.emit(notice(garbageNotice(raw, err)))
		return
	}
	switch {
	case m.Method != "" && m.hasID():
		c.onRequest(&m, raw)
	case m.Method != "":
		c.onNotification(&m, raw)
	case m.hasID() && (m.Result != nil || m.Error != nil):
		c.onAnswer(&m, raw)
	case m.Error != nil:
		c.emit(notice(fmt.Sprintf("the agent could not take a message: %v", m.Error)))
	default:
		c.emit(notice("the agent sent a message that is not JSON-RPC"), unknown(raw))
	}
}

func (c *Client) onAnswer(m *incoming, raw []byte) {
	key := rawID(m.ID)
	answer, ok := c.calls[key]
	if !ok {
		c.emit(unknown(raw))
		return
	}
	delete(c.calls, key)
	answer(m.Result, m.Error)
}

// garbageLimit bounds how much of a bad line a notice quotes.
const garbageLimit = 200

func garbageNotice(line []byte, err error) string {
	shown := line
	if len(shown) > garbageLimit {
		shown = shown[:garbageLimit]
	}
	return fmt.Sprintf("the agent wrote a line that is not JSON (%v): %q", err, shown)
}

// call sends a request and remembers what to do with its answer; it
// returns the request's id.
func (c *Client) call(method string, params any, answer answerFunc) int64 {
	id := c.nextID
	c.nextID++
	if c.send(outRequest{JSONRPC: jsonrpcVersion, ID: id, Method: method, Params: params}) {
		c.calls[idText(id)] = answer
	}
	return id
}

func (c *Client) notify(method string, params any) {
	c.send(outNotification{JSONRPC: jsonrpcVersion, Method: method, Params: params})
}

func (c *Client) send(msg any) bool {
	line, err := encodeLine(msg)
	if err != nil {
		c.emit(notice(fmt.Sprintf("cannot encode a message to the agent: %v", err)))
		return false
	}
	c.outs = append(c.outs, Out{Line: line})
	return true
}

// encodeLine writes text as it is: "<" and ">" of a question block stay
// readable to the agent instead of becoming \u003c.
func encodeLine(msg any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(msg); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func (c *Client) emit(items ...Item) {
	for _, it := range items {
		if c.replaying {
			it.History = true
		}
		if breaksMessage(it.Type) {
			c.stream.kind = ""
		}
		c.items = append(c.items, it)
	}
}

func (c *Client) flush() ([]Item, []Out) {
	items, outs := c.items, c.outs
	c.items, c.outs = nil, nil
	return items, outs
}

// end closes the client: nothing more is sent, Feed ignores what comes.
func (c *Client) end(items ...Item) {
	c.emit(items...)
	c.emit(Item{Type: TypeClosed})
	c.phase = phaseEnded
}
