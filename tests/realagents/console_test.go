//go:build linux && amd64

package realagents

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// bins holds the built command.
var bins string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "realagents-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := 1
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "escouade-plugin"), "../../cmd/escouade-plugin")
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
	} else {
		bins = dir
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// waitLong is how long a test waits for what an agent does next: real
// agents start node or a 300 MB binary on a loaded machine.
func waitLong(t *testing.T) time.Duration {
	d := 150 * time.Second
	if dl, ok := t.Deadline(); ok {
		if left := time.Until(dl) / 2; left < d {
			d = left
		}
	}
	return d
}

// item is one conversation item of the JSON console (docs/harness.md#conversation-items).
type item struct {
	Type       string          `json:"type"`
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	Title      string          `json:"title"`
	Kind       string          `json:"kind"`
	Status     string          `json:"status"`
	Request    string          `json:"request"`
	Text       string          `json:"text"`
	Mode       string          `json:"mode"`
	AppMode    string          `json:"appMode"`
	StopReason string          `json:"stopReason"`
	Input      json.RawMessage `json:"input"`
	Diffs      []struct {
		Path    string  `json:"path"`
		OldText *string `json:"oldText"`
		NewText string  `json:"newText"`
	} `json:"diffs"`
	Options []struct {
		OptionID string `json:"optionId"`
		Kind     string `json:"kind"`
	} `json:"options"`
	Usage map[string]any  `json:"usage"`
	Raw   json.RawMessage `json:"raw"`
	line  string
}

// console runs `escouade-plugin harness … --json` and reads its items.
type console struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	items chan item
	mu    sync.Mutex
	all   []item
	done  chan struct{}
}

func startConsole(t *testing.T, env []string, args ...string) *console {
	t.Helper()
	cmd := exec.Command(filepath.Join(bins, "escouade-plugin"), append([]string{"harness"}, args...)...)
	cmd.Env = env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &console{t: t, cmd: cmd, stdin: stdin, items: make(chan item, 4096), done: make(chan struct{})}
	go c.read(stdout)
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-c.done:
		case <-time.After(waitLong(t)):
			cmd.Process.Kill()
			<-c.done
		}
		cmd.Wait()
		if t.Failed() {
			t.Logf("stderr of harness: %s", truncate(stderr.String(), 4000))
		}
	})
	return c
}

func (c *console) read(r io.Reader) {
	defer close(c.done)
	defer close(c.items)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var line struct {
			Op   string          `json:"op"`
			Item json.RawMessage `json:"item"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil || line.Op != "item" {
			c.items <- item{Type: "console:" + line.Op, line: sc.Text()}
			continue
		}
		var it item
		json.Unmarshal(line.Item, &it)
		it.line = string(line.Item)
		c.mu.Lock()
		c.all = append(c.all, it)
		c.mu.Unlock()
		c.items <- it
	}
}

// send writes one console command.
func (c *console) send(op map[string]any) {
	c.t.Helper()
	b, _ := json.Marshal(op)
	if _, err := c.stdin.Write(append(b, '\n')); err != nil {
		c.t.Fatalf("console %v: %v", op, err)
	}
}

// until reads items until one matches, and gives the items read.
func (c *console) until(what string, match func(item) bool) []item {
	c.t.Helper()
	var seen []item
	deadline := time.After(waitLong(c.t))
	for {
		select {
		case it, ok := <-c.items:
			if !ok {
				c.t.Fatalf("the command ended before %s; items:\n%s", what, lines(seen))
			}
			seen = append(seen, it)
			if match(it) {
				return seen
			}
		case <-deadline:
			c.t.Fatalf("no %s; items:\n%s", what, lines(seen))
		}
	}
}

func (c *console) untilType(typ string) []item {
	c.t.Helper()
	return c.until(typ, func(it item) bool { return it.Type == typ })
}

func lines(items []item) string {
	var b strings.Builder
	for _, it := range items {
		b.WriteString(truncate(it.line, 1500) + "\n")
	}
	return b.String()
}

func ofType(items []item, typ string) []item {
	var out []item
	for _, it := range items {
		if it.Type == typ {
			out = append(out, it)
		}
	}
	return out
}
