package console

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

// command is one input line; each op reads the fields it needs.
type command struct {
	Op          string               `json:"op"`
	ID          string               `json:"id"`
	Method      string               `json:"method"`
	Params      json.RawMessage      `json:"params"`
	Calls       []batchEntry         `json:"calls"`
	Name        string               `json:"name"`
	Agent       string               `json:"agent"`
	Permissions manifest.Permissions `json:"permissions"`
	Dir         string               `json:"dir"`
	N           int                  `json:"n"`

	rawPermissions json.RawMessage // the permissions as sent, to refuse unknown kinds
}

type batchEntry struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Notify bool            `json:"notify"`
}

type answerLine struct {
	Op string `json:"op"`
	ID string `json:"id"`
	host.Outcome
}

// exampleCommand is shown with a line that is not a command.
const exampleCommand = `{"op":"call","id":"c1","method":"hello/greet","params":{"name":"Ada"}}`

// handle runs one command; it returns false on close.
func (c *Console) handle(ctx context.Context, line []byte) bool {
	if !utf8.Valid(line) {
		c.fail("not a command: %v", errNotUTF8)
		return true
	}
	if isMessageLine(line) {
		if err := c.message(ctx, line); err != nil {
			c.fail("message: %v", err)
		}
		return true
	}
	var cmd command
	if err := json.Unmarshal(line, &cmd); err != nil {
		c.fail("not a command: %s (a command is one JSON object per line, e.g. %s)", DescribeJSONError(err), exampleCommand)
		return true
	}
	cmd.rawPermissions = rawMember(line, "permissions")
	if err := checkIDs(line); err != nil {
		c.fail("%s: %v", cmd.Op, err)
		return true
	}
	if err := c.dispatch(ctx, &cmd); err != nil {
		c.fail("%s: %v", cmd.Op, err)
	}
	return cmd.Op != "close"
}

func (c *Console) dispatch(ctx context.Context, cmd *command) error {
	switch cmd.Op {
	case "call":
		return c.call(ctx, cmd)
	case "notify":
		if cmd.Method == "" {
			return fmt.Errorf(`"method" is required`)
		}
		c.Plugin.Notify(cmd.Method, params(cmd.Params))
	case "batch":
		return c.batch(ctx, cmd)
	case "fact":
		if cmd.Name == "" {
			return fmt.Errorf(`"name" is required`)
		}
		c.Plugin.Fact(cmd.Name, params(cmd.Params))
	case "attach":
		return c.attach(ctx, cmd)
	case "grant", "revoke":
		if err := checkPermissionKinds(cmd.rawPermissions); err != nil {
			return err
		}
		return c.change(ctx, cmd)
	case "restart", "enable", "disable", "update":
		return c.change(ctx, cmd)
	case "state":
		c.writeState(c.Plugin.Status())
	case "journal":
		c.writeJournal(cmd.N)
	case "close":
	case "":
		return fmt.Errorf(`a command needs an "op"`)
	default:
		return fmt.Errorf("unknown op %q (ops: call, notify, batch, fact, attach, restart, enable, disable, grant, revoke, update, state, journal, close)", cmd.Op)
	}
	return nil
}

// params keeps absent params absent on the wire; null is taken as absent.
func params(raw json.RawMessage) any {
	if absent(raw) {
		return nil
	}
	return raw
}

func absent(raw json.RawMessage) bool {
	v := bytes.TrimSpace(raw)
	return len(v) == 0 || string(v) == "null"
}

func (c *Console) call(ctx context.Context, cmd *command) error {
	if cmd.Method == "" || cmd.ID == "" {
		return fmt.Errorf(`"id" and "method" are required`)
	}
	pending := c.Plugin.Go(cmd.Method, params(cmd.Params)) // in command order
	c.calls.Go(func() {
		c.write(answerLine{Op: "answer", ID: cmd.ID, Outcome: pending.Wait(ctx)})
	})
	return nil
}

func (c *Console) batch(ctx context.Context, cmd *command) error {
	if cmd.ID == "" || len(cmd.Calls) == 0 {
		return fmt.Errorf(`"id" and a non-empty "calls" are required`)
	}
	calls := make([]jsonrpc.BatchCall, len(cmd.Calls))
	for i, e := range cmd.Calls {
		if e.Method == "" {
			return fmt.Errorf("calls[%d] has no method", i)
		}
		calls[i] = jsonrpc.BatchCall{Method: e.Method, Params: params(e.Params), Notify: e.Notify}
	}
	pending := c.Plugin.GoBatch(calls)
	c.calls.Go(func() {
		outs := pending.Wait(ctx)
		for i, out := range outs {
			if !calls[i].Notify {
				c.write(answerLine{Op: "answer", ID: cmd.ID + "." + strconv.Itoa(i), Outcome: out})
			}
		}
	})
	return nil
}

func (c *Console) attach(ctx context.Context, cmd *command) error {
	if cmd.Agent == "" {
		return fmt.Errorf(`"agent" is required`)
	}
	if err := checkAttachParams(cmd.Params); err != nil {
		return err // it carries "agent" too: an object only
	}
	attachParams := cmd.Params
	if absent(attachParams) {
		attachParams = nil
	}
	pending, err := c.Plugin.GoAttach(cmd.Agent, attachParams) // in command order
	if err != nil {
		return err
	}
	c.calls.Go(func() {
		c.write(answerLine{Op: "answer", ID: cmd.Agent, Outcome: pending.Wait(ctx)})
	})
	return nil
}

// change runs a user change, then answers with the state.
func (c *Console) change(ctx context.Context, cmd *command) error {
	p := c.Plugin
	var err error
	switch cmd.Op {
	case "restart":
		err = p.Restart(ctx)
	case "enable":
		p.Enable()
	case "disable":
		p.Disable(ctx)
	case "grant":
		for _, w := range notAsked(cmd.Permissions, p.Manifest()) {
			c.fail("grant: %s", w)
		}
		err = p.SetGranted(ctx, p.Granted().Union(cmd.Permissions.Intersect(p.Manifest().Permissions))) // only what it asks
	case "revoke":
		for _, w := range notGranted(cmd.Permissions, p.Granted(), p.Manifest()) {
			c.fail("revoke: %s", w)
		}
		err = p.SetGranted(ctx, p.Granted().Without(cmd.Permissions))
	case "update":
		err = c.update(ctx, cmd.Dir)
	}
	if err != nil {
		c.fail("%s: %v", cmd.Op, err)
	}
	c.writeState(p.Status()) // a change is always answered by the state it left
	return nil
}

func (c *Console) update(ctx context.Context, dir string) error {
	if dir == "" {
		return fmt.Errorf(`"dir" is required`)
	}
	if c.Load == nil {
		return fmt.Errorf("updates are not available here")
	}
	apply, err := c.Load(dir)
	if err != nil {
		return err
	}
	return apply(ctx, c.Plugin)
}
