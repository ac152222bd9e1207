// Command raw is a test module of the command shape (and, built for the
// machine, a process plugin) written without the kit: it speaks the protocol by hand, so a test can make it break the
// handshake, ask the host anything, answer late or not at all. What its
// handshake does comes from /plugin/mode.json when present.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"unsafe"
)

type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

var (
	mode struct {
		Handshake string `json:"handshake"` // "", "v2", "none", "silent"
	}
	waiting = map[string]func(message){} // host request id → what to do with its answer
	nextID  int
	served  int
	seen    []string              // the methods of the requests served, in order
	labels  = map[string]string{} // timer id → label
	kept    [][]byte
	spin    int
)

func main() {
	if b, err := os.ReadFile("/plugin/mode.json"); err == nil {
		json.Unmarshal(b, &mode)
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 16<<20)
	for in.Scan() {
		line := in.Bytes()
		if len(line) > 0 && line[0] == '[' {
			batch(line)
			continue
		}
		var m message
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		if a := handle(m); a != nil {
			write(a)
		}
	}
}

func batch(line []byte) {
	var members []message
	if json.Unmarshal(line, &members) != nil {
		return
	}
	var answers []any
	for _, m := range members {
		if a := handle(m); a != nil {
			answers = append(answers, a)
		}
	}
	if len(answers) > 0 {
		write(answers)
	}
}

// handle serves one message and returns its answer now, or nil.
func handle(m message) any {
	if m.Method == "" {
		if f, ok := waiting[string(m.ID)]; ok {
			delete(waiting, string(m.ID))
			f(m)
		}
		return nil
	}
	if m.ID == nil {
		if strings.HasPrefix(m.Method, "test/") {
			serve(m)
		}
		notified(m)
		return nil
	}
	served++
	seen = append(seen, m.Method)
	result, answer := serve(m)
	if !answer {
		return nil
	}
	return map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result}
}

func notified(m message) {
	if m.Method != "timer/fired" {
		return
	}
	var p struct {
		Timer json.RawMessage `json:"timer"`
	}
	json.Unmarshal(m.Params, &p)
	label := labels[string(p.Timer)]
	logLine("fired " + label)
	if label == "late" {
		lateHook()
	}
	if len(label) > 6 && label[:6] == "fault:" {
		fault(label[6:])
	}
}

func serve(m message) (any, bool) {
	switch m.Method {
	case "initialize":
		switch mode.Handshake {
		case "v2":
			return map[string]any{"protocolVersion": 2, "capabilities": map[string]any{}}, true
		case "none":
			return map[string]any{"capabilities": map[string]any{}}, true
		case "silent":
			return nil, false
		}
		return map[string]any{"protocolVersion": 1, "capabilities": map[string]any{"batch": true}}, true
	case "shutdown":
		write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": nil})
		os.Exit(0)
	case "test/echo":
		return m.Params, true
	case "test/served":
		return served, true
	case "test/seen":
		return seen, true
	case "test/never":
		return nil, false
	case "test/late":
		// Answers once a timer of the host fires: later than its delay.
		ask("timer/set", map[string]any{"ms": 400}, func(a message) {
			var r struct {
				Timer json.RawMessage `json:"timer"`
			}
			json.Unmarshal(a.Result, &r)
			labels[string(r.Timer)] = "late"
			id := m.ID
			pendingLate = append(pendingLate, id)
		})
		return nil, false
	case "test/log":
		var p struct{ Message, Stderr string }
		json.Unmarshal(m.Params, &p)
		if p.Message != "" {
			logLine(p.Message)
		}
		if p.Stderr != "" {
			fmt.Fprintln(os.Stderr, p.Stderr)
		}
		return nil, true
	case "test/files":
		return files(), true
	case "test/svc":
		// Asks the host the method and params given, and answers with
		// the host's answer.
		var p struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		json.Unmarshal(m.Params, &p)
		ask(p.Method, p.Params, func(a message) {
			write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"result": a.Result, "error": a.Error}})
		})
		return nil, false
	case "test/hostbatch":
		hostBatch(m)
		return nil, false
	case "test/timers":
		timers(m)
		return nil, false
	case "test/arm":
		// Logs "armed", then does the fault its params name when a 10 ms
		// timer fires: the journal line dates the fault's start.
		var what string
		argument(m.Params, &what)
		logLine("armed " + what)
		ask("timer/set", map[string]any{"ms": 10}, func(a message) {
			var r struct {
				Timer json.RawMessage `json:"timer"`
			}
			json.Unmarshal(a.Result, &r)
			labels[string(r.Timer)] = "fault:" + what
		})
		return nil, true
	case "test/fault":
		var what string
		argument(m.Params, &what)
		fault(what)
	}
	return map[string]any{"unknown": m.Method}, true
}

var pendingLate []json.RawMessage

func init() {
	// The late answers go when their timer fires.
	lateHook = func() {
		for _, id := range pendingLate {
			write(map[string]any{"jsonrpc": "2.0", "id": id, "result": "late"})
		}
		pendingLate = nil
	}
}

var lateHook func()

func fault(what string) {
	switch what {
	case "loop":
		for {
			spin++
		}
	case "grow":
		// One allocation past the 64 MB: a single memory.grow the host
		// refuses, so the limit acts at once, however loaded the machine.
		for {
			kept = append(kept, make([]byte, 96<<20))
		}
	case "panic":
		panic("boom")
	case "trap":
		// An access past the linear memory: a trap of the engine, not a
		// panic of Go.
		p := (*byte)(unsafe.Pointer(uintptr(0xfffffff0)))
		*p = 1
	case "exit":
		os.Exit(3)
	case "late":
		lateHook()
	}
}

func hostBatch(m message) {
	var p struct {
		Calls []struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		} `json:"calls"`
	}
	json.Unmarshal(m.Params, &p)
	results := make([]any, len(p.Calls))
	left := len(p.Calls)
	var reqs []any
	for i, c := range p.Calls {
		nextID++
		id := strconv.Itoa(nextID)
		reqs = append(reqs, map[string]any{"jsonrpc": "2.0", "id": nextID, "method": c.Method, "params": c.Params})
		waiting[id] = func(a message) {
			results[i] = map[string]any{"result": a.Result, "error": a.Error}
			left--
			if left == 0 {
				write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": results})
			}
		}
	}
	write(reqs)
}

func timers(m message) {
	var ms []int
	json.Unmarshal(m.Params, &ms)
	results := make([]any, len(ms))
	left := len(ms)
	logLine("arming")
	for i, d := range ms {
		ask("timer/set", map[string]any{"ms": d}, func(a message) {
			if a.Error != nil {
				results[i] = map[string]any{"error": a.Error}
			} else {
				var r struct {
					Timer json.RawMessage `json:"timer"`
				}
				json.Unmarshal(a.Result, &r)
				labels[string(r.Timer)] = strconv.Itoa(i)
				results[i] = map[string]any{"timer": r.Timer}
			}
			left--
			if left == 0 {
				write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": results})
			}
		})
	}
}

func ask(method string, params any, then func(message)) {
	nextID++
	waiting[strconv.Itoa(nextID)] = then
	write(map[string]any{"jsonrpc": "2.0", "id": nextID, "method": method, "params": params})
}

func logLine(text string) {
	write(map[string]any{"jsonrpc": "2.0", "method": "log", "params": map[string]any{"level": "info", "message": text}})
}

// files maps each entry of /plugin to its size.
func files() map[string]int {
	entries, err := os.ReadDir("/plugin")
	out := map[string]int{}
	if err != nil {
		out["error: "+err.Error()] = -1
		return out
	}
	names := []string{}
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	for _, n := range names {
		b, err := os.ReadFile("/plugin/" + n)
		if err != nil {
			out[n] = -1
			continue
		}
		out[n] = len(b)
	}
	return out
}

func write(v any) {
	b, _ := json.Marshal(v)
	os.Stdout.Write(append(b, '\n'))
}

// argument decodes params into v, or their first element when params are
// an array (the protocol's params are an object or an array).
func argument(params json.RawMessage, v any) {
	if json.Unmarshal(params, v) == nil {
		return
	}
	var list []json.RawMessage
	if json.Unmarshal(params, &list) == nil && len(list) > 0 {
		json.Unmarshal(list[0], v)
	}
}
