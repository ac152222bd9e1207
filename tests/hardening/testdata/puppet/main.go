// Command puppet is a hostile plugin program driven by its calls: the
// method "do" carries a list of actions (write raw bytes on stdout or
// stderr, send log notifications, call the host, flood it, read its own
// environment) that it plays in order before answering, and may exit the
// instant its answer is written. A file puppet.json in its folder may
// make it stop reading its stdin once initialize is answered.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
)

type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// action is one step of a "do" call; exactly one field is set.
type action struct {
	Stdout    *string         `json:"stdout"`
	Stderr    *string         `json:"stderr"`
	Log       json.RawMessage `json:"log"`
	RPC       *message        `json:"rpc"`
	LogFlood  int             `json:"logFlood"`
	Batch     *batchFlood     `json:"batch"`
	ExitAfter *int            `json:"exitAfter"`
	// KillAfter makes it SIGKILL itself the instant its answer is written.
	KillAfter bool `json:"killAfter"`
	// SplitAnswer writes the answer in two writes, the newline last.
	SplitAnswer bool `json:"splitAnswer"`
	// Env adds the program's environment to the answer.
	Env bool `json:"env"`
	// Exchange writes a raw line and adds the host's next batch answer
	// (an array line) to the answer.
	Exchange *string `json:"exchange"`
}

// batchFlood is one line holding N requests of one method.
type batchFlood struct {
	N      int             `json:"n"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

type config struct {
	DeafAfterInit bool `json:"deafAfterInit"`
}

var (
	outMu   sync.Mutex
	out     = bufio.NewWriterSize(os.Stdout, 64<<10)
	pending sync.Map // id text -> chan message
	nextID  int
	idMu    sync.Mutex
)

func main() {
	var cfg config
	if b, err := os.ReadFile("puppet.json"); err == nil {
		_ = json.Unmarshal(b, &cfg)
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			handle(line, cfg)
		}
		if err != nil {
			os.Exit(0)
		}
	}
}

// batchAnswers carries the host's array lines to an exchange action.
var batchAnswers = make(chan json.RawMessage, 1)

func handle(line []byte, cfg config) {
	if trimmed := bytes.TrimSpace(line); trimmed[0] == '[' {
		handleBatch(trimmed)
		return
	}
	var m message
	if json.Unmarshal(line, &m) != nil {
		return // noise
	}
	if m.Method == "" {
		if ch, ok := pending.LoadAndDelete(string(m.ID)); ok {
			ch.(chan message) <- m
		}
		return
	}
	switch m.Method {
	case "initialize":
		reply(m.ID, map[string]any{"protocolVersion": 1, "capabilities": map[string]any{"batch": true}})
		if cfg.DeafAfterInit {
			holdForever()
		}
	case "shutdown":
		reply(m.ID, nil)
		os.Exit(0)
	case "do":
		go play(m)
	case "echo":
		reply(m.ID, m.Params)
	default:
		if m.ID != nil {
			reply(m.ID, nil)
		}
	}
}

// handleBatch answers a batch of the host with one array: "echo" answers
// its params as they came, any other request null. An array of answers
// (the host's answer to a batch of the plugin) goes to an exchange
// waiting for it, or is dropped (a flood's).
func handleBatch(line []byte) {
	var msgs []message
	if json.Unmarshal(line, &msgs) != nil {
		return
	}
	var answers []map[string]any
	for _, m := range msgs {
		switch {
		case m.Method == "":
			select {
			case batchAnswers <- json.RawMessage(bytes.Clone(line)):
			default:
			}
			return
		case m.ID == nil:
		case m.Method == "echo":
			answers = append(answers, map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": m.Params})
		default:
			answers = append(answers, map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": nil})
		}
	}
	if len(answers) > 0 {
		send(answers)
	}
}

// play runs the actions of a "do" call and answers it with what the host
// answered to its rpc actions.
func play(m message) {
	var acts []action
	if err := json.Unmarshal(m.Params, &acts); err != nil {
		fail(err)
	}
	results := []json.RawMessage{}
	exit, kill, split := -1, false, false
	for _, a := range acts {
		kill = kill || a.KillAfter
		split = split || a.SplitAnswer
		switch {
		case a.Stdout != nil:
			write([]byte(*a.Stdout))
		case a.Stderr != nil:
			os.Stderr.WriteString(*a.Stderr)
		case a.Log != nil:
			send(map[string]any{"jsonrpc": "2.0", "method": "log", "params": a.Log})
		case a.RPC != nil:
			results = append(results, call(a.RPC.Method, a.RPC.Params))
		case a.LogFlood > 0:
			logFlood(a.LogFlood)
		case a.Batch != nil:
			batch(*a.Batch)
		case a.ExitAfter != nil:
			exit = *a.ExitAfter
		case a.Exchange != nil:
			write([]byte(*a.Exchange + "\n"))
			results = append(results, <-batchAnswers)
		case a.Env:
			b, _ := json.Marshal(os.Environ())
			results = append(results, b)
		}
	}
	if exit >= 0 || kill {
		// The answer and the end come together: nothing is left to flush
		// once the answer is on the pipe.
		outMu.Lock()
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": results})
		if split {
			os.Stdout.Write(b[:len(b)/2])
			os.Stdout.Write(append(b[len(b)/2:], '\n'))
		} else {
			os.Stdout.Write(append(b, '\n'))
		}
		if kill {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
		os.Exit(exit)
	}
	reply(m.ID, results)
}

func call(method string, params json.RawMessage) json.RawMessage {
	idMu.Lock()
	nextID++
	id := strconv.Itoa(nextID)
	idMu.Unlock()
	ch := make(chan message, 1)
	pending.Store(id, ch)
	send(map[string]any{"jsonrpc": "2.0", "id": nextIDRaw(id), "method": method, "params": params})
	m := <-ch
	b, _ := json.Marshal(map[string]json.RawMessage{"result": m.Result, "error": m.Error})
	return b
}

func nextIDRaw(id string) json.RawMessage { return json.RawMessage(id) }

func logFlood(n int) {
	outMu.Lock()
	defer outMu.Unlock()
	for i := 0; i < n; i++ {
		fmt.Fprintf(out, `{"jsonrpc":"2.0","method":"log","params":{"level":"info","message":"flood %d"}}`+"\n", i)
	}
	out.Flush()
}

func batch(b batchFlood) {
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i := 0; i < b.N; i++ {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `{"jsonrpc":"2.0","id":"flood-%d","method":%q,"params":%s}`, i, b.Method, b.Params)
	}
	buf.WriteString("]\n")
	write(buf.Bytes())
}

func reply(id json.RawMessage, result any) {
	send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		fail(err)
	}
	write(append(b, '\n'))
}

func write(b []byte) {
	outMu.Lock()
	defer outMu.Unlock()
	out.Write(b)
	out.Flush()
}

// holdForever blocks for good; the signal goroutine keeps the runtime from
// calling it a deadlock.
func holdForever() {
	never := make(chan os.Signal, 1)
	signal.Notify(never, syscall.SIGUSR2)
	for range never {
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "puppet:", err)
	os.Exit(2)
}
