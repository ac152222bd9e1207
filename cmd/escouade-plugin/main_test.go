package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
)

// The test binary doubles as a plugin: with FAKE_PLUGIN set it answers
// initialize, echoes test/echo, asks the host for a secret on test/secret and
// exits on test/crash.
func TestMain(m *testing.M) {
	if os.Getenv("FAKE_PLUGIN") != "" {
		os.Exit(fakePlugin())
	}
	os.Exit(m.Run())
}

func fakePlugin() int {
	exit := make(chan int, 1)
	var conn *jsonrpc.Conn
	connected := make(chan struct{}) // closed once conn is set: handlers may call the host
	conn = jsonrpc.NewConn(os.Stdin, os.Stdout, jsonrpc.Options{
		Handle: func(ctx context.Context, m *jsonrpc.Message) (any, error) {
			<-connected
			switch m.Method {
			case "initialize":
				return map[string]any{"protocolVersion": 1}, nil
			case "shutdown":
				exit <- 0
				return nil, nil
			case "test/echo", "agent/attach":
				return m.Params, nil
			case "test/secret":
				return conn.Call(ctx, "secrets/get", map[string]string{"key": "token"})
			case "test/crash":
				os.Stderr.WriteString("crashing now\n")
				os.Exit(3)
			}
			return nil, jsonrpc.ErrMethodNotFound
		},
	})
	close(connected)
	select {
	case <-conn.Done():
		return 0
	case code := <-exit:
		return code
	}
}

// pluginDir writes a plugin folder whose program is this test binary.
func pluginDir(t *testing.T, version string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	m := map[string]any{
		"id": "dev.test.cli", "name": "CLI test", "version": version,
		"escouade":    map[string]string{"api": "1"},
		"run":         map[string]any{"command": []string{"env", "FAKE_PLUGIN=1", exe, "-test.run=^$"}}, // a plugin gets only what its command gives of the environment
		"activation":  []string{"onCall", "event:ticket.column"},
		"permissions": map[string]any{"secrets": []string{"token"}},
	}
	data, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, "escouade-plugin.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runCLI runs the command in-process and returns exit code, stdout, stderr.
func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// lines decodes JSON lines of output.
func lines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var list []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("output line %q is not JSON: %v", l, err)
		}
		list = append(list, m)
	}
	return list
}

// byOp returns the output lines with that op.
func byOp(list []map[string]any, op string) []map[string]any {
	var out []map[string]any
	for _, m := range list {
		if m["op"] == op {
			out = append(out, m)
		}
	}
	return out
}
