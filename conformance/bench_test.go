package conformance

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/google/go-cmp/cmp"
)

// overriding answers like wellBehaved, except a lone request of method,
// which reply answers (nil: nothing).
func overriding(method string, reply func(m *jsonrpc.Message) []string) func([]byte) ([]string, bool) {
	return func(line []byte) ([]string, bool) {
		decoded := jsonrpc.DecodeLine(line)
		if !decoded.Batch && len(decoded.Items) == 1 && decoded.Items[0].Msg != nil &&
			decoded.Items[0].Msg.Method == method {
			return reply(decoded.Items[0].Msg), false
		}
		return wellBehaved(line)
	}
}

// answering returns a reply of the raw member text, such as
// `"result":{"protocolVersion":2}` or `"error":{"code":-32603,"message":"x"}`.
func answering(member string) func(m *jsonrpc.Message) []string {
	return func(m *jsonrpc.Message) []string {
		return []string{`{"jsonrpc":"2.0","id":` + m.ID.String() + `,` + member + `}`}
	}
}

func silent(*jsonrpc.Message) []string { return nil }

// TestBenchJudgesEachFault plays in-process plugins, each wrong in one
// way, inside a bubble where the bench's waits take no real time.
func TestBenchJudgesEachFault(t *testing.T) {
	tests := []struct {
		name   string
		plugin fakePlugin
		extra  string // manifest members
		bench  string // escouade-bench.json
		opts   Options
		fails  string // the one failing check, "" for none
		got    string // a part of what the failure says came
	}{
		{name: "well behaved", plugin: fakePlugin{answer: wellBehaved}},
		{name: "initialize answered with an error", fails: CheckInitialize,
			got:    "its answer to initialize is an error: boom",
			plugin: fakePlugin{answer: overriding(methodInitialize, answering(`"error":{"code":-32603,"message":"boom"}`))}},
		{name: "initialize without a version", fails: CheckInitialize,
			got:    "its answer to initialize has no protocol version",
			plugin: fakePlugin{answer: overriding(methodInitialize, answering(`"result":{"capabilities":{}}`))}},
		{name: "initialize with a string version", fails: CheckInitialize,
			got:    `its answer to initialize has no protocol version (protocolVersion is "1", not a number)`,
			plugin: fakePlugin{answer: overriding(methodInitialize, answering(`"result":{"protocolVersion":"1"}`))}},
		{name: "initialize result off the schema", fails: CheckInitialize,
			got:    "result/capabilities",
			plugin: fakePlugin{answer: overriding(methodInitialize, answering(`"result":{"protocolVersion":1,"capabilities":[]}`))}},
		{name: "initialize never answered", fails: CheckInitialize,
			got:    "no answer to initialize within 10 s",
			plugin: fakePlugin{answer: overriding(methodInitialize, silent)}},
		{name: "program ends at once", fails: CheckInitialize,
			got:    "its stdout ended",
			plugin: fakePlugin{answer: func([]byte) ([]string, bool) { return nil, true }}},
		{name: "junk on stdout", fails: CheckStdout, got: "Loading…",
			plugin: fakePlugin{atStart: []string{"Loading…"}, answer: wellBehaved}},
		{name: "a version 2", fails: CheckInitialize,
			got:    "it speaks version 2 of the protocol; this Escouade speaks version 1",
			plugin: fakePlugin{answer: overriding(methodInitialize, answering(`"result":{"protocolVersion":2}`))}},
		{name: "a version 1.0", fails: CheckInitialize,
			got:    "(protocolVersion is 1.0, not an integer)",
			plugin: fakePlugin{answer: overriding(methodInitialize, answering(`"result":{"protocolVersion":1.0}`))}},
		{name: "junk answered back, as a response", fails: CheckStdout,
			got: `it answered the bench's -32700 (id null) to such a line with an error of its own`,
			plugin: fakePlugin{atStart: []string{"Loading…"}, answer: func(line []byte) ([]string, bool) {
				if strings.Contains(string(line), `"id":null`) && !strings.Contains(string(line), `"method"`) {
					return []string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`}, false
				}
				return wellBehaved(line)
			}}},
		{name: "no activation", fails: CheckActivation, extra: `,"activation":[]`,
			got:    `"activation" is missing or empty: the host never starts it`,
			plugin: fakePlugin{answer: wellBehaved}},
		{name: "a notification answered", fails: CheckNotificationBatch, got: `"id":null`,
			plugin: fakePlugin{answer: func(line []byte) ([]string, bool) {
				if strings.Count(string(line), methodEvent) == 2 {
					return []string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"no"}}`}, false
				}
				return wellBehaved(line)
			}}},
		{name: "a wasm-only service asked", fails: CheckHostRequests, got: "net/fetch: no such method (-32601)",
			plugin: fakePlugin{atStart: []string{`{"jsonrpc":"2.0","id":"h1","method":"net/fetch","params":{"url":"https://x.org"}}`},
				answer: wellBehaved}},
		{name: "a secret asked with bad params", fails: CheckHostRequests, got: "secrets/get: params do not hold",
			plugin: fakePlugin{atStart: []string{`{"jsonrpc":"2.0","id":"h1","method":"secrets/get","params":{"key":1}}`},
				answer: wellBehaved}},
		{name: "the manifest asked as a file", fails: CheckHostRequests, got: "(-32003)",
			plugin: fakePlugin{atStart: []string{`{"jsonrpc":"2.0","id":"h1","method":"files/read","params":{"path":"escouade-plugin.json"}}`},
				answer: wellBehaved}},
		{name: "a missing file asked", plugin: fakePlugin{
			atStart: []string{`{"jsonrpc":"2.0","id":"h1","method":"files/read","params":{"path":"data/none.txt"}}`},
			answer:  wellBehaved}},
		{name: "host requests in a batch", extra: `,"permissions":{"secrets":["token"]}`, plugin: fakePlugin{
			atStart: []string{`[{"jsonrpc":"2.0","id":"h1","method":"secrets/get","params":{"key":"token"}},` +
				`{"jsonrpc":"2.0","method":"log","params":{"level":"info","message":"hi"}}]`},
			answer: wellBehaved}},
		{name: "too much memory", fails: CheckMemory, opts: Options{MemoryLimit: 1 << 20},
			got:    "10 MB of memory, past the limit of 1 MB",
			plugin: fakePlugin{answer: wellBehaved}},
		{name: "shutdown answered with an error", fails: CheckShutdown,
			got:    "its answer to shutdown is an error: busy",
			plugin: fakePlugin{answer: overriding(methodShutdown, answering(`"error":{"code":-32603,"message":"busy"}`))}},
		{name: "shutdown answered, no exit", fails: CheckShutdown,
			got:    "it answered shutdown but still ran 1 s later",
			plugin: fakePlugin{answer: overriding(methodShutdown, answering(`"result":null`))}},
		{name: "a process left behind", fails: CheckChildren, got: "still run after it exited",
			plugin: fakePlugin{answer: wellBehaved, leftover: 1 << 20}},
		{name: "a decision answered late", fails: CheckDelay,
			got:    "permissions/escouade-bench: no answer within 500 ms",
			plugin: fakePlugin{answer: overriding(methodDecision, silent)}},
		{name: "an unknown method answered -32603", fails: CheckUnknownMethod, got: "error -32603: oops",
			plugin: fakePlugin{answer: overriding(methodUnknown, answering(`"error":{"code":-32603,"message":"oops"}`))}},
		{name: "a scenario's error code differs", fails: ScenarioPrefix + "s", got: "error -32601: Method not found",
			bench:  `{"scenarios":[{"name":"s","call":"tickets/x","expect":{"error":{"code":-32602}}}]}`,
			plugin: fakePlugin{answer: wellBehaved}},
		{name: "a scenario's error message differs", fails: ScenarioPrefix + "s", got: "error -32601: Method not found",
			bench:  `{"scenarios":[{"name":"s","call":"tickets/x","expect":{"error":{"code":-32601,"message":"No"}}}]}`,
			plugin: fakePlugin{answer: wellBehaved}},
		{name: "a scenario without expect answered an error", fails: ScenarioPrefix + "s", got: "error -32601",
			bench:  `{"scenarios":[{"name":"s","call":"tickets/x"}]}`,
			plugin: fakePlugin{answer: wellBehaved}},
		{name: "a scenario's result matches", bench: `{"scenarios":[{"name":"s","call":"tickets/x","params":{"a":1},` +
			`"expect":{"result":{"b":[1.0,"x"],"a":null}}}]}`,
			plugin: fakePlugin{answer: overriding("tickets/x", answering(`"result":{"a":null,"b":[1,"x"]}`))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := pluginDir(t, tt.extra, tt.bench)
			synctest.Test(t, func(t *testing.T) {
				opts := tt.opts
				opts.Transports = fakeTransports(tt.plugin)
				r := Run(context.Background(), dir, opts)
				var want []string
				if tt.fails != "" {
					want = []string{tt.fails}
				}
				if diff := cmp.Diff(want, failures(r)); diff != "" {
					logReport(t, r)
					t.Fatalf("failed checks (-want +got):\n%s", diff)
				}
				if res, _ := r.Result(tt.fails); !strings.Contains(res.Got, tt.got) {
					t.Errorf("got %q, want it to hold %q", res.Got, tt.got)
				}
			})
		})
	}
}

// TestHostAnswersABatchWithABatch checks what the program reads back when it
// sends the host a batch: one array line holding the answer of its request
// (a notification gets none), the fake secret in it.
func TestHostAnswersABatchWithABatch(t *testing.T) {
	dir := pluginDir(t, `,"permissions":{"secrets":["token"]}`, "")
	var read []string
	plugin := fakePlugin{
		atStart: []string{`[{"jsonrpc":"2.0","id":"h1","method":"secrets/get","params":{"key":"token"}},` +
			`{"jsonrpc":"2.0","method":"log","params":{"level":"info","message":"hi"}}]`},
		answer: func(line []byte) ([]string, bool) {
			read = append(read, string(line))
			return wellBehaved(line)
		},
	}
	synctest.Test(t, func(t *testing.T) {
		r := Run(context.Background(), dir, Options{Transports: fakeTransports(plugin)})
		if failed := failures(r); len(failed) > 0 {
			logReport(t, r)
			t.Fatalf("failed checks %v, want none", failed)
		}
	})
	want := `[{"jsonrpc":"2.0","id":"h1","result":"bench-secret:token"}]`
	for _, line := range read {
		if line == want {
			return
		}
	}
	t.Errorf("the program never read %s; it read:\n%s", want, strings.Join(read, "\n"))
}
