package host

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/keychain"
	"github.com/google/go-cmp/cmp"
)

func TestOversizedStdoutLineIsRefusedAndTheNextLinesKept(t *testing.T) {
	// Writing and skipping 8 MiB under -race on a loaded machine can take
	// longer than the 5 s delay of a call: what is tested is that the line
	// is refused and the next one kept, not how fast, so the delay is long.
	_, p := startHost(t, "ok", Options{Delays: map[string]time.Duration{"test/huge": 2 * time.Minute}})
	if o := call(t, p, "test/huge", nil); string(o.Result) != `"after huge"` {
		t.Fatalf("outcome = %+v", o)
	}
	line := journalHas(t, p, "refused", "stdout: a line past the 8 MiB limit: xxxx")
	if len(line) > 400 {
		t.Errorf("the journal line holds more than an excerpt: %d bytes", len(line))
	}
	mustResult(t, call(t, p, "test/echo", []int{1}))
}

func TestStderrFloodDoesNotBlockTheProtocol(t *testing.T) {
	// 10 MB of stderr through a slow pipe (under -race, or wine's) can
	// take longer than the 5 s delay of a call: what is tested is that the
	// flood does not block the protocol, not how fast, so the delay is long.
	_, p := startHost(t, "ok", Options{Delays: map[string]time.Duration{"test/flood": 2 * time.Minute}})
	if o := call(t, p, "test/flood", nil); string(o.Result) != `"flooded"` {
		t.Fatalf("outcome = %+v", o)
	}
	mustResult(t, call(t, p, "test/echo", []int{1}))
	journalHas(t, p, "stderr", strings.Repeat("e", 1000))
}

func TestExitMidBatchEndsEveryCallAsCrashed(t *testing.T) {
	_, p := startHost(t, "ok", Options{})
	outs := p.Batch(context.Background(), []jsonrpc.BatchCall{
		{Method: "test/never"},
		{Method: "test/crash"},
	})
	for i, o := range outs {
		if o.Default != Crashed {
			t.Errorf("outcome %d = %+v, want crashed", i, o)
		}
	}
	mustResult(t, call(t, p, "test/echo", []int{1}))
}

func TestAPluginThatDiesLeavesNoChildBehind(t *testing.T) {
	_, p := startHost(t, "ok", Options{})
	if o := call(t, p, "test/die-with-child", nil); o.Default != Crashed {
		t.Fatalf("outcome = %+v", o)
	}
	line := journalHas(t, p, "log.info", "child ")
	var pid int
	_, after, _ := strings.Cut(line, "child ")
	json.Unmarshal([]byte(after), &pid)
	if pid == 0 {
		t.Fatalf("no child pid in %q", line)
	}
	journalHas(t, p, "crash", "crashed: exit code 4")
	eventually(t, "the orphan child killed with the group", func() bool { return !processRuns(pid) })
}

func TestABatchFromThePluginIsAnsweredAsOne(t *testing.T) {
	kc := keychain.NewMemory()
	kc.Set(keychain.Service, keychain.PluginName("dev.test.fake", "token"), "tok")
	_, p := startHost(t, "ok", Options{Keychain: kc})
	var got []string
	json.Unmarshal(mustResult(t, call(t, p, "test/askbatch", nil)), &got)
	want := []string{`"tok"|<nil>`, `|<nil>`, `|The plugin may not read this file.`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	journalHas(t, p, "log.warn", "from a batch")
}
