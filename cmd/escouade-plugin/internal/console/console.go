// Package console is the JSON-lines console of `escouade-plugin run`
// (docs/CLI.md#ops): one command object per input line, one JSON object per output
// line. It stands in for the app in front of one plugin of a host.
package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/jsonrpc"
)

// MaxCommand is the longest command line read (a call's params included).
const MaxCommand = 16 << 20

// Console serves commands for one plugin.
type Console struct {
	Host   *host.Host
	Plugin *host.Plugin
	// Follow writes every journal line and state change as it happens.
	Follow bool
	// Load reads a plugin folder for the update command.
	Load func(dir string) (Update, error)

	out   *json.Encoder
	outMu sync.Mutex
	calls sync.WaitGroup
}

// Update is an update read from a folder, ready to apply.
type Update func(ctx context.Context, p *host.Plugin) error

// Serve reads commands until EOF or close, then waits for the calls under
// way, closes the host gracefully and returns.
func (c *Console) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	c.out = json.NewEncoder(out)
	c.out.SetEscapeHTML(false)
	if c.Follow {
		cancel := c.Plugin.Journal().Subscribe(func(line string) {
			c.write(map[string]any{"op": "journal-line", "line": line})
		})
		defer cancel()
	}
	lines := jsonrpc.NewLineReader(in, MaxCommand)
	for {
		line, tooLong, err := lines.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				c.fail("stdin: %v", err)
			}
			// The end of input: the calls under way get their answers
			// (each within its delay), then the host closes gracefully.
			c.calls.Wait()
			return c.Host.Close(context.Background())
		}
		if tooLong {
			c.fail("a command line over %d MiB was skipped", MaxCommand>>20)
			continue
		}
		if !c.handle(ctx, line) {
			// close: the host shuts down now; calls under way end stopped.
			err := c.Host.Close(context.Background())
			c.calls.Wait()
			return err
		}
	}
}

// StateChanged is wired to host.Options.OnState when Follow is set.
func (c *Console) StateChanged(id string, s host.Status) {
	if c.Follow && id == c.Plugin.ID() {
		c.writeState(s)
	}
}

func (c *Console) write(v any) {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	c.out.Encode(v)
}

func (c *Console) fail(format string, args ...any) {
	c.write(map[string]any{"op": "error", "message": fmt.Sprintf(format, args...)})
}

func (c *Console) writeState(s host.Status) {
	c.write(stateLine{Op: "state", State: s.State, Reason: s.Reason, PID: s.PID, Instance: s.Program, Crashes: s.Crashes})
}

// stateLine is a status as the CLI spells it (docs/CLI.md): the program's
// pid when the system runs it, 0 otherwise, and its journal name.
type stateLine struct {
	Op       string     `json:"op"`
	State    host.State `json:"state"`
	Reason   string     `json:"reason"`
	PID      int        `json:"pid"`
	Instance string     `json:"instance,omitempty"`
	Crashes  int        `json:"crashes"`
}

type journalLine struct {
	Op    string   `json:"op"`
	Lines []string `json:"lines"`
}

func (c *Console) writeJournal(n int) {
	if n <= 0 {
		n = 500
	}
	lines, err := c.Plugin.Journal().Tail(n)
	if err != nil {
		c.fail("journal: %v", err)
		return
	}
	if lines == nil {
		lines = []string{}
	}
	c.write(journalLine{Op: "journal", Lines: lines})
}
