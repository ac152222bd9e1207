package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
)

// The test binary doubles as the fake plugins: run with FAKE_PLUGIN=<mode>
// it speaks protocol 1 on stdin/stdout as that mode says.
func TestMain(m *testing.M) {
	if os.Getenv("FAKE_SLEEPER") != "" {
		time.Sleep(300 * time.Second) // a child left running, as sleep 300 is
		os.Exit(0)
	}
	if mode := os.Getenv("FAKE_PLUGIN"); mode != "" {
		os.Exit(fakePlugin(mode))
	}
	os.Exit(m.Run())
}

func fakePlugin(mode string) int {
	switch mode {
	case "crashloop":
		fmt.Fprintln(os.Stderr, "boom: cannot start")
		return 1
	case "silent":
		// Reads and never answers, until the host closes its stdin. (A bare
		// select{} is a deadlock the runtime ends on Windows.)
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	}
	f := &fake{mode: mode, exit: make(chan int, 1), connected: make(chan struct{})}
	f.conn = jsonrpc.NewConn(&recorder{r: os.Stdin, f: f}, os.Stdout, jsonrpc.Options{Handle: f.handle})
	close(f.connected) // handlers may call the host from now on
	select {
	case <-f.conn.Done():
		return 0
	case code := <-f.exit:
		return code
	}
}

// fake is a plugin whose behaviour each test picks by method.
type fake struct {
	mode      string
	conn      *jsonrpc.Conn
	connected chan struct{} // closed once conn is set
	exit      chan int

	mu       sync.Mutex
	received []string // methods of app messages, in order
}

// recorder notes the messages the host sends in the order they arrive,
// before the connection serves them (it serves notifications and requests
// on goroutines of their own).
type recorder struct {
	r       io.Reader
	f       *fake
	partial []byte
}

func (rec *recorder) Read(b []byte) (int, error) {
	n, err := rec.r.Read(b)
	rec.partial = append(rec.partial, b[:n]...)
	for {
		line, rest, ok := bytes.Cut(rec.partial, []byte("\n"))
		if !ok {
			break
		}
		var m struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(line, &m) == nil && m.Method != "" {
			rec.f.mu.Lock()
			rec.f.received = append(rec.f.received, m.Method+" "+string(m.Params))
			rec.f.mu.Unlock()
		}
		rec.partial = append([]byte(nil), rest...)
	}
	return n, err
}

func (f *fake) handle(ctx context.Context, m *jsonrpc.Message) (any, error) {
	<-f.connected
	switch m.Method {
	case "initialize":
		return f.initialize()
	case "shutdown":
		if f.mode == "deaf" {
			select {}
		}
		return nil, nil // the host then closes stdin: the connection ends, so does the fake
	case "test/echo":
		return m.Params, nil
	case "test/never":
		select {}
	case "test/slow":
		var p struct{ MS int }
		json.Unmarshal(m.Params, &p)
		select {
		case <-time.After(time.Duration(p.MS) * time.Millisecond): // a plugin busy that long
		case <-ctx.Done():
		}
		return "slow answer", nil
	case "test/crash":
		for i := range 25 {
			fmt.Fprintf(os.Stderr, "dying line %d\n", i+1)
		}
		f.exit <- 3
		select {}
	case "test/ask":
		var p struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		json.Unmarshal(m.Params, &p)
		return f.ask(ctx, p.Method, p.Params)
	case "test/stderr":
		var p struct{ Line string }
		json.Unmarshal(m.Params, &p)
		fmt.Fprintln(os.Stderr, p.Line)
		return true, nil
	case "test/huge":
		os.Stdout.Write(append(bytes.Repeat([]byte("x"), 9<<20), '\n'))
		return "after huge", nil
	case "test/flood":
		line := strings.Repeat("e", 1000) + "\n"
		for range 10_000 {
			os.Stderr.WriteString(line)
		}
		return "flooded", nil
	case "test/die-with-child":
		cmd := sleeper()
		cmd.Start()
		fmt.Println(`{"jsonrpc":"2.0","method":"log","params":{"level":"info","message":"child ` + fmt.Sprint(cmd.Process.Pid) + `"}}`)
		os.Exit(4)
	case "test/askbatch":
		res := f.conn.Batch(ctx, []jsonrpc.BatchCall{
			{Method: "secrets/get", Params: map[string]string{"key": "token"}},
			{Method: "log", Params: map[string]string{"level": "warn", "message": "from a batch"}, Notify: true},
			{Method: "files/read", Params: map[string]string{"path": "../x"}},
		})
		var out []string
		for _, r := range res {
			out = append(out, fmt.Sprintf("%s|%v", r.Result, r.Err))
		}
		return out, nil
	case "test/notify-log":
		f.conn.Notify("log", map[string]string{"level": "loud", "message": "a message at a made-up level"})
		return true, nil
	case "test/garbage":
		os.Stdout.WriteString("this is not json\n")
		return "after garbage", nil
	case "test/received":
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.received, nil
	case "test/env":
		env := map[string]string{}
		for _, k := range []string{"ESCOUADE_PLUGIN_ID", "ESCOUADE_PLUGIN_API", "ESCOUADE_VERSION", "ESCOUADE_LANG"} {
			env[k] = os.Getenv(k)
		}
		wd, _ := os.Getwd()
		env["cwd"] = wd
		return env, nil
	case "test/spawn":
		cmd := sleeper()
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		return cmd.Process.Pid, nil
	case "test/alloc":
		hold = make([]byte, 80<<20)
		for i := range hold {
			hold[i] = 1
		}
		return len(hold), nil
	}
	return nil, jsonrpc.ErrMethodNotFound
}

var hold []byte

// sleeper is a child that sleeps 300 s, on every system: the test binary
// itself.
func sleeper() *exec.Cmd {
	self, _ := os.Executable()
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), "FAKE_SLEEPER=1")
	return cmd
}

func (f *fake) initialize() (any, error) {
	switch f.mode {
	case "v2":
		return map[string]any{"protocolVersion": 2}, nil
	case "noversion":
		return map[string]any{"capabilities": map[string]any{}}, nil
	case "stringversion":
		return map[string]any{"protocolVersion": "1"}, nil
	case "slowinit":
		<-time.After(200 * time.Millisecond) // a plugin slow to start
	case "noattach":
		return map[string]any{"protocolVersion": 1, "capabilities": map[string]any{"attach": false}}, nil
	}
	return map[string]any{"protocolVersion": 1, "capabilities": map[string]any{"batch": true}}, nil
}

// ask calls the host and returns its answer or error as data.
func (f *fake) ask(ctx context.Context, method string, params json.RawMessage) (any, error) {
	res, err := f.conn.Call(ctx, method, params)
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return map[string]any{"error": rpcErr}, nil
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"result": res}, nil
}

func (f *fake) String() string { return strings.Join(f.received, ",") }
