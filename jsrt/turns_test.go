package jsrt

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/google/go-cmp/cmp"
)

// lines splits stdout into its lines.
func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func TestEchoBundle(t *testing.T) {
	for name, src := range map[string]string{
		"events": echoSrc,
		"for await": `
import * as readline from 'node:readline';
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const l of rl) {
  const m = JSON.parse(l);
  await new Promise((r) => queueMicrotask(r));
  process.stdout.write(JSON.stringify({jsonrpc:'2.0', id: m.id, result: m.params}) + '\n');
}`,
	} {
		t.Run(name, func(t *testing.T) {
			in := start(t, src, instanceOptions{})
			if out := in.runTurn(nil); out != "" || in.ended != nil {
				t.Fatalf("first turn: out %q, ended %v", out, in.ended)
			}
			got := lines(in.send(`{"jsonrpc":"2.0","id":1,"method":"a","params":{"x":1}}`, `{"jsonrpc":"2.0","id":"two","method":"b","params":[2]}`+"\r"))
			got = append(got, lines(in.send(`{"jsonrpc":"2.0","id":3,"method":"c","params":"é"}`))...)
			want := []string{
				`{"jsonrpc":"2.0","id":1,"result":{"x":1}}`,
				`{"jsonrpc":"2.0","id":"two","result":[2]}`,
				`{"jsonrpc":"2.0","id":3,"result":"é"}`,
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if in.ended != nil {
				t.Errorf("ended: %v, stderr %s", in.ended, in.stderr.String())
			}
		})
	}
}

// Lines that come before the bundle listens are kept for it.
func TestLinesBeforeListening(t *testing.T) {
	in := launch(t, `
import { createInterface } from 'node:readline';
setTimeout(() => {}, 10);
Promise.resolve().then(() => {
  createInterface({ input: process.stdin }).on('line', (l) => process.stdout.write('got ' + l + '\n'));
});`, instanceOptions{})
	in.stdin.WriteLine(`{"a":1}`)
	got := lines(in.runTurn(nil))
	want := []string{`{"jsonrpc":"2.0","id":"escouade-rt:1","method":"timer/set","params":{"ms":10}}`, `got {"a":1}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
}

func TestReadFileSync(t *testing.T) {
	plugin := fstest.MapFS{
		"rules.json":    {Data: []byte(`{"rules":["a","b"]}`)},
		"channels.json": {Data: []byte(`["general"]`)},
	}
	src := `
import { readFileSync, existsSync } from 'node:fs';
import fs from 'node:fs';
const out = {};
out.url = JSON.parse(readFileSync(new URL('../rules.json', globalThis._importMeta_.url), 'utf8'));
out.meta = import.meta.url;
out.relative = JSON.parse(readFileSync('channels.json', 'utf8'));
out.dot = JSON.parse(readFileSync('./rules.json', { encoding: 'utf8' }));
out.buffer = JSON.parse(readFileSync('rules.json'));
out.fileString = JSON.parse(fs.readFileSync(new URL('../channels.json', import.meta.url).href, 'utf8'));
out.exists = [existsSync('rules.json'), existsSync('missing.json')];
try { readFileSync('missing.json', 'utf8'); } catch (e) { out.missing = [e.code, e.message]; }
try { fs.writeFileSync('x.json', '{}'); } catch (e) { out.write = e.code; }
process.stdout.write(JSON.stringify(out) + '\n');
`
	in := start(t, src, instanceOptions{plugin: plugin})
	var got map[string]any
	if err := json.Unmarshal([]byte(in.stdout.String()), &got); err != nil {
		t.Fatalf("%v: stdout %q stderr %s", err, in.stdout.String(), in.stderr.String())
	}
	want := map[string]any{
		"url":        map[string]any{"rules": []any{"a", "b"}},
		"meta":       "file:///plugin/dist/plugin.mjs",
		"relative":   []any{"general"},
		"dot":        map[string]any{"rules": []any{"a", "b"}},
		"buffer":     map[string]any{"rules": []any{"a", "b"}},
		"fileString": []any{"general"},
		"exists":     []any{true, false},
		"missing":    []any{"ENOENT", "ENOENT: no such file or directory, open '/plugin/missing.json'"},
		"write":      "ENOSYS",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Console output never reaches stdout, which carries the protocol.
func TestConsoleGoesToStderr(t *testing.T) {
	in := start(t, `
console.log('log %s %d', 'a', 42); console.info({a: [1, 'x']}); console.warn('warn'); console.error(new Error('e').message);
console.debug(null, undefined, 1n); console.dir({b: 1});
process.stderr.write('raw\n');`, instanceOptions{})
	if in.stdout.String() != "" {
		t.Errorf("stdout: %q", in.stdout.String())
	}
	want := []string{"log a 42", "{ a: [ 1, 'x' ] }", "warn", "e", "null undefined 1n", "{ b: 1 }", "raw"}
	if diff := cmp.Diff(want, in.stderrLines()); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
}

func TestProcessExit(t *testing.T) {
	in := start(t, `process.stdout.write('bye\n'); process.exit(3); process.stdout.write('never\n')`, instanceOptions{})
	if got := in.exitCode(); got != 3 {
		t.Fatalf("exit code %d (%v)", got, in.ended)
	}
	if got := host.CrashSentence(ExitOf(3, nil, 0)); got != "crashed: exit code 3" {
		t.Errorf("sentence %q", got)
	}
}
