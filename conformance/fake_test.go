package conformance

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// fakePlugin is a plugin played in-process, line by line: answer returns the
// lines to write for each line read, and exit ends the program.
type fakePlugin struct {
	// atStart are lines written before anything is read.
	atStart []string
	// answer returns the lines to write for one line read; exit ends the
	// program after writing them.
	answer func(line []byte) (out []string, exit bool)
	// leftover is the memory Memory reports once the program exited.
	leftover uint64
	// endLag is how long after its stdin closes its end is seen, as a
	// process's stdin closes before the system reaps it.
	endLag time.Duration
}

// fakeTransport starts a fakePlugin on pipes, so the bench's logic runs
// without a process and, inside a synctest bubble, without real waits.
type fakeTransport struct{ plugin fakePlugin }

// fakeTransports runs every kind of program as plugin.
func fakeTransports(plugin fakePlugin) map[manifest.RunKind]transport.Transport {
	t := fakeTransport{plugin}
	return map[manifest.RunKind]transport.Transport{manifest.RunProcess: t, manifest.RunWASM: t, manifest.RunJS: t}
}

func (fakeTransport) Close(context.Context) error { return nil }

func (f fakeTransport) Launch(context.Context, transport.LaunchSpec) (transport.Program, error) {
	p := &fakeProgram{plugin: f.plugin, done: make(chan struct{})}
	p.stdinR, p.stdinW = io.Pipe()
	p.stdoutR, p.stdoutW = io.Pipe()
	p.wg.Add(1)
	go p.run()
	return p, nil
}

type fakeProgram struct {
	plugin          fakePlugin
	stdinR, stdoutR *io.PipeReader
	stdinW, stdoutW *io.PipeWriter
	done            chan struct{}
	wg              sync.WaitGroup
}

func (p *fakeProgram) run() {
	defer p.wg.Done()
	defer close(p.done)
	defer p.stdoutW.Close()
	// A program that ended reads nothing more: a write to it fails, as a
	// pipe to a dead process does.
	defer func() {
		p.stdinR.CloseWithError(io.ErrClosedPipe)
		time.Sleep(p.plugin.endLag)
	}()
	for _, line := range p.plugin.atStart {
		io.WriteString(p.stdoutW, line+"\n")
	}
	lines := bufio.NewScanner(p.stdinR)
	for lines.Scan() {
		out, exit := p.plugin.answer(lines.Bytes())
		for _, line := range out {
			if _, err := io.WriteString(p.stdoutW, line+"\n"); err != nil {
				return
			}
		}
		if exit {
			return
		}
	}
}

func (p *fakeProgram) Stdin() io.WriteCloser { return p.stdinW }
func (p *fakeProgram) Stdout() io.ReadCloser { return p.stdoutR }
func (p *fakeProgram) Done() <-chan struct{} { return p.done }
func (p *fakeProgram) ID() string            { return "instance 1" }
func (p *fakeProgram) Exit() transport.Exit  { return transport.Exit{Kind: transport.Exited} }
func (p *fakeProgram) LastStderr() []string  { return nil }
func (p *fakeProgram) Stop(context.Context, transport.StopOptions) error {
	p.stdinW.Close()
	p.stdoutR.CloseWithError(io.ErrClosedPipe)
	p.wg.Wait()
	return nil
}

func (p *fakeProgram) Memory() (uint64, error) {
	select {
	case <-p.done:
		return p.plugin.leftover, nil
	default:
		return 10 << 20, nil
	}
}

// wellBehaved answers as a correct plugin does: initialize with version 1,
// shutdown with null then exit, anything else -32601, a batch with one
// array holding the answers of its requests, notifications with nothing.
func wellBehaved(line []byte) ([]string, bool) {
	decoded := jsonrpc.DecodeLine(line)
	var answers []*jsonrpc.Message
	exit := false
	for _, item := range decoded.Items {
		m := item.Msg
		if m == nil || !m.IsRequest() {
			continue
		}
		switch m.Method {
		case methodInitialize:
			answers = append(answers, &jsonrpc.Message{ID: m.ID, Result: json.RawMessage(`{"protocolVersion":1}`)})
		case methodShutdown:
			answers = append(answers, &jsonrpc.Message{ID: m.ID, Result: json.RawMessage(`null`)})
			exit = true
		default:
			answers = append(answers, &jsonrpc.Message{ID: m.ID, Error: jsonrpc.ErrMethodNotFound})
		}
	}
	return encodeAnswers(decoded.Batch, answers), exit
}

func encodeAnswers(batch bool, answers []*jsonrpc.Message) []string {
	if len(answers) == 0 {
		return nil
	}
	if batch {
		data, _ := json.Marshal(answers)
		return []string{string(data)}
	}
	out := make([]string, len(answers))
	for i, a := range answers {
		data, _ := json.Marshal(a)
		out[i] = string(data)
	}
	return out
}

// pluginDir writes a process plugin's manifest (and escouade-bench.json when
// bench is not empty) in a temporary folder.
func pluginDir(t *testing.T, extra string, bench string) string {
	t.Helper()
	dir := t.TempDir()
	activation := `,"activation":["onCall"]`
	if strings.Contains(extra, `"activation"`) {
		activation = ""
	}
	manifest := `{"id":"dev.escouade.fake","name":"fake","version":"1.0.0","escouade":{"api":"1"},` +
		`"run":{"command":["./fake"]}` + activation + extra + `}`
	if err := os.WriteFile(filepath.Join(dir, "escouade-plugin.json"), []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	if bench != "" {
		if err := os.WriteFile(filepath.Join(dir, BenchFileName), []byte(bench), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
