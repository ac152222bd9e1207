package jsrt

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The runtime's own host calls (timer/*, net/fetch) use ids the plugin
// does not; their answers never reach the plugin's stdin readers.

const listenSrc = `
import { createInterface } from 'node:readline';
createInterface({ input: process.stdin }).on('line', (l) => process.stdout.write('plugin got ' + l + '\n'));
`

func TestTimers(t *testing.T) {
	in := launch(t, listenSrc+`
const order = [];
const a = setTimeout((x) => { order.push('a' + x); process.stdout.write('fired ' + order.join(',') + '\n'); }, 0, 1);
const b = setTimeout(() => process.stdout.write('b must not fire\n'), 50);
clearTimeout(b);
let n = 0;
const i = setInterval(() => { n++; process.stdout.write('tick ' + n + '\n'); if (n === 2) clearInterval(i); }, 25);
`, instanceOptions{})
	steps := []struct {
		send []string
		want []string
	}{
		{nil, []string{
			`{"jsonrpc":"2.0","id":"escouade-rt:1","method":"timer/set","params":{"ms":10}}`,
			`{"jsonrpc":"2.0","id":"escouade-rt:2","method":"timer/set","params":{"ms":50}}`,
			`{"jsonrpc":"2.0","id":"escouade-rt:3","method":"timer/set","params":{"ms":25}}`,
		}},
		{[]string{
			`{"jsonrpc":"2.0","id":"escouade-rt:1","result":{"timer":7}}`,
			`{"jsonrpc":"2.0","id":"escouade-rt:2","result":{"timer":8}}`,
			`{"jsonrpc":"2.0","id":"escouade-rt:3","result":{"timer":9}}`,
		}, []string{
			// b was cleared before the host numbered it.
			`{"jsonrpc":"2.0","id":"escouade-rt:4","method":"timer/clear","params":{"timer":8}}`,
		}},
		{[]string{`{"jsonrpc":"2.0","id":"escouade-rt:4","result":null}`, `{"jsonrpc":"2.0","method":"timer/fired","params":{"timer":7}}`}, []string{`fired a1`}},
		{[]string{`{"jsonrpc":"2.0","method":"timer/fired","params":{"timer":9}}`}, []string{
			`{"jsonrpc":"2.0","id":"escouade-rt:5","method":"timer/set","params":{"ms":25}}`,
			`tick 1`,
		}},
		{[]string{`{"jsonrpc":"2.0","id":"escouade-rt:5","result":{"timer":10}}`, `{"jsonrpc":"2.0","method":"timer/fired","params":{"timer":10}}`}, []string{
			`{"jsonrpc":"2.0","id":"escouade-rt:6","method":"timer/set","params":{"ms":25}}`,
			`tick 2`,
		}},
		// A timer the runtime did not set is the plugin's business.
		{[]string{`{"jsonrpc":"2.0","method":"timer/fired","params":{"timer":99}}`}, []string{
			`plugin got {"jsonrpc":"2.0","method":"timer/fired","params":{"timer":99}}`,
		}},
		// The interval was cleared before the host numbered its next timer.
		{[]string{`{"jsonrpc":"2.0","id":"escouade-rt:6","result":{"timer":11}}`}, []string{
			`{"jsonrpc":"2.0","id":"escouade-rt:7","method":"timer/clear","params":{"timer":11}}`,
		}},
	}
	for i, s := range steps {
		got := lines(in.send(s.send...))
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Fatalf("step %d: stdout (-want +got):\n%s\nstderr: %s", i, diff, in.stderr.String())
		}
	}
}

func TestTimersAtMost64(t *testing.T) {
	in := start(t, `
for (let i = 0; i < 64; i++) setTimeout(() => {}, 1000);
try { setTimeout(() => {}, 1000); } catch (e) { console.error(e.name + ': ' + e.message); }
`, instanceOptions{})
	if n := len(lines(in.stdout.String())); n != 64 {
		t.Errorf("%d timer/set requests, want 64", n)
	}
	if got, want := in.stderr.String(), "RangeError: at most 64 timers can be pending at once in Escouade\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
	// The host's refusal of a timer is said on stderr; the instance lives.
	in.send(`{"jsonrpc":"2.0","id":"escouade-rt:1","error":{"code":-32003,"message":"more than 64 timers"}}`)
	if !strings.Contains(in.stderr.String(), "escouade: a timer was refused: more than 64 timers") || in.ended != nil {
		t.Errorf("stderr %q, ended %v", in.stderr.String(), in.ended)
	}
}

func TestFetch(t *testing.T) {
	in := launch(t, listenSrc+`
const res = await fetch('https://api.example.com/v1/items?q=a b', { method: 'post', headers: { 'X-Token': 't', 'Content-Type': 'application/json' }, body: JSON.stringify({ a: 1 }) });
const h = res.headers;
process.stdout.write(JSON.stringify({ status: res.status, ok: res.ok, type: h.get('Content-Type'), url: res.url, body: await res.json(), again: await res.text().catch((e) => e.name) }) + '\n');
const bin = await fetch(new Request('https://api.example.com/bin'));
process.stdout.write(JSON.stringify(Array.from(new Uint8Array(await bin.arrayBuffer()))) + ' ' + bin.statusText + '\n');
try { await fetch('https://blocked.example.org/'); } catch (e) { process.stdout.write(e.name + ': ' + e.message + ' / ' + e.cause.message + ' ' + e.cause.code + '\n'); }
`, instanceOptions{})
	steps := []struct {
		send []string
		want []string
	}{
		{nil, []string{`{"jsonrpc":"2.0","id":"escouade-rt:1","method":"net/fetch","params":{"url":"https://api.example.com/v1/items?q=a%20b","method":"POST","headers":{"content-type":"application/json","x-token":"t"},"body":"{\"a\":1}"}}`}},
		{[]string{
			`{"jsonrpc":"2.0","id":7,"method":"plugin/ping"}`,
			`{"jsonrpc":"2.0","result":{"status":201,"headers":{"content-type":"application/json","x-many":"a, b"},"body":"{\"ok\":true}","bodyEncoding":"utf8"},"id":"escouade-rt:1"}`,
		}, []string{
			`plugin got {"jsonrpc":"2.0","id":7,"method":"plugin/ping"}`,
			`{"status":201,"ok":true,"type":"application/json","url":"https://api.example.com/v1/items?q=a%20b","body":{"ok":true},"again":"TypeError"}`,
			`{"jsonrpc":"2.0","id":"escouade-rt:2","method":"net/fetch","params":{"url":"https://api.example.com/bin","method":"GET"}}`,
		}},
		{[]string{`{"jsonrpc":"2.0","id":"escouade-rt:2","result":{"status":404,"headers":{},"body":"AP8Q","bodyEncoding":"base64"}}`}, []string{
			`[0,255,16] Not Found`,
			`{"jsonrpc":"2.0","id":"escouade-rt:3","method":"net/fetch","params":{"url":"https://blocked.example.org/","method":"GET"}}`,
		}},
		{[]string{`{"jsonrpc":"2.0","id":"escouade-rt:3","error":{"code":-32003,"message":"blocked.example.org is not in permissions.network"}}`}, []string{
			`TypeError: fetch failed / blocked.example.org is not in permissions.network -32003`,
		}},
	}
	for i, s := range steps {
		got := lines(in.send(s.send...))
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Fatalf("step %d: stdout (-want +got):\n%s\nstderr: %s", i, diff, in.stderr.String())
		}
	}
}

// A plugin line that only mentions the runtime's id prefix is the
// plugin's.
func TestPluginLinesPassThrough(t *testing.T) {
	in := start(t, listenSrc, instanceOptions{})
	sent := []string{
		`{"jsonrpc":"2.0","id":1,"method":"x","params":{"s":"\"escouade-rt:1"}}`,
		`{"jsonrpc":"2.0","id":"escouade-rt:9","method":"x"}`,
		`[{"jsonrpc":"2.0","id":"escouade-rt:1","result":null}]`,
		`not json "escouade-rt:`,
		``,
	}
	got := lines(in.send(sent...))
	var want []string
	for _, s := range sent {
		want = append(want, "plugin got "+s)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// A body past what a net/fetch answer carries is fetched again through
// net/stream: its chunks are taken off stdin and gathered into the
// Response; a stream the runtime did not open reaches the plugin.
func TestFetchPastTheAnswerBoundStreams(t *testing.T) {
	in := launch(t, listenSrc+`
const res = await fetch('https://files.example.com/big');
process.stdout.write(JSON.stringify({ status: res.status, type: res.headers.get('content-type'), body: await res.text() }) + '\n');
try { await fetch('https://files.example.com/huge'); } catch (e) { process.stdout.write(e.name + ': ' + e.cause.message + ' / ' + e.cause.data.reason + '\n'); }
`, instanceOptions{})
	const over = `"error":{"code":-32004,"message":"The request failed on the way.","data":{"reason":"https://files.example.com/big: the body is over the 4194304 bytes a net/fetch answer carries (limits.netMaxBytes 16777216 holds for net/stream): read it through net/stream"}}`
	steps := []struct {
		send []string
		want []string
	}{
		{nil, []string{`{"jsonrpc":"2.0","id":"escouade-rt:1","method":"net/fetch","params":{"url":"https://files.example.com/big","method":"GET"}}`}},
		{[]string{`{"jsonrpc":"2.0","id":"escouade-rt:1",` + over + `}`}, []string{
			`{"jsonrpc":"2.0","id":"escouade-rt:2","method":"net/stream","params":{"url":"https://files.example.com/big","method":"GET"}}`,
		}},
		{[]string{
			`{"jsonrpc":"2.0","id":"escouade-rt:2","result":{"stream":4,"status":200,"headers":{"content-type":"text/plain"}}}`,
			`{"jsonrpc":"2.0","method":"net/chunk","params":{"stream":4,"data":"ab","bodyEncoding":"utf8"}}`,
			`{"jsonrpc":"2.0","method":"net/chunk","params":{"stream":99,"data":"theirs","bodyEncoding":"utf8"}}`,
			`{"jsonrpc":"2.0","method":"net/chunk","params":{"stream":4,"data":"Y+Kckw==","bodyEncoding":"base64"}}`,
			`{"jsonrpc":"2.0","method":"net/end","params":{"stream":4}}`,
		}, []string{
			`plugin got {"jsonrpc":"2.0","method":"net/chunk","params":{"stream":99,"data":"theirs","bodyEncoding":"utf8"}}`,
			`{"status":200,"type":"text/plain","body":"abc✓"}`,
			`{"jsonrpc":"2.0","id":"escouade-rt:3","method":"net/fetch","params":{"url":"https://files.example.com/huge","method":"GET"}}`,
		}},
		{[]string{`{"jsonrpc":"2.0","id":"escouade-rt:3",` + over + `}`}, []string{
			`{"jsonrpc":"2.0","id":"escouade-rt:4","method":"net/stream","params":{"url":"https://files.example.com/huge","method":"GET"}}`,
		}},
		{[]string{
			`{"jsonrpc":"2.0","id":"escouade-rt:4","result":{"stream":5,"status":200,"headers":{}}}`,
			`{"jsonrpc":"2.0","method":"net/end","params":{"stream":5,"error":"https://files.example.com/huge: the body is over the limit of 16777216 bytes"}}`,
		}, []string{
			`TypeError: The request failed on the way. / https://files.example.com/huge: the body is over the limit of 16777216 bytes`,
		}},
	}
	for i, s := range steps {
		got := lines(in.send(s.send...))
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Fatalf("step %d: stdout (-want +got):\n%s\nstderr: %s", i, diff, in.stderr.String())
		}
	}
}
