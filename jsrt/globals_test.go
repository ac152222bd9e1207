package jsrt

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The web and Node globals real plugin code uses, each checked against
// what Node gives for the same expression.
func TestGlobals(t *testing.T) {
	cases := map[string]struct {
		expr string
		want any
	}{
		"TextEncoder":                 {`Array.from(new TextEncoder().encode('é€😀'))`, []any{195., 169., 226., 130., 172., 240., 159., 152., 128.}},
		"TextDecoder":                 {`new TextDecoder().decode(new Uint8Array([104, 195, 169, 240, 159, 152, 128, 255]))`, "hé😀\ufffd"},
		"TextDecoder stream":          {`(() => { const d = new TextDecoder(); return d.decode(new Uint8Array([226, 130]), {stream: true}) + d.decode(new Uint8Array([172])) })()`, "€"},
		"TextDecoder fatal":           {`(() => { try { new TextDecoder('utf-8', {fatal: true}).decode(new Uint8Array([255])) } catch (e) { return e.name } })()`, "TypeError"},
		"URL parts":                   {`(() => { const u = new URL('https://User:pw@Example.COM:443/a/./b/../c?x=1&y=a+b#frag'); return [u.href, u.origin, u.host, u.pathname, u.search, u.hash, u.searchParams.get('y'), u.username] })()`, []any{"https://User:pw@example.com/a/c?x=1&y=a+b#frag", "https://example.com", "example.com", "/a/c", "?x=1&y=a+b", "#frag", "a b", "User"}},
		"URL relative":                {`[new URL('../rules.json', 'file:///plugin/dist/plugin.mjs').href, new URL('x?q', 'https://a.b/c/d').href, new URL('//c.d/e', 'https://a.b/').href, new URL('?z', 'https://a.b/c?y').href, new URL('/p', 'http://a.b:8080/q').href]`, []any{"file:///plugin/rules.json", "https://a.b/c/x?q", "https://c.d/e", "https://a.b/c?z", "http://a.b:8080/p"}},
		"URL invalid":                 {`[URL.canParse('nope'), URL.canParse('https://'), (() => { try { new URL('/x') } catch (e) { return e.name } })()]`, []any{false, false, "TypeError"}},
		"URL encode":                  {`new URL('https://a.b/ä b?c d#e f').href`, "https://a.b/%C3%A4%20b?c%20d#e%20f"},
		"URL searchParams":            {`(() => { const u = new URL('https://a.b/?a=1'); u.searchParams.append('b', 'x y'); u.searchParams.set('a', '2'); return u.href })()`, "https://a.b/?a=2&b=x+y"},
		"URLSearchParams":             {`new URLSearchParams({q: 'a&b', n: 1}).toString()`, "q=a%26b&n=1"},
		"structuredClone":             {`(() => { const o = {d: new Date(0), m: new Map([[1, {s: new Set([2])}]]), a: [1, , 3], u: new Uint8Array([1, 2])}; o.self = o; const c = structuredClone(o); return [c !== o, c.self === c, c.d.getTime(), c.m.get(1).s.has(2), c.u[1], 1 in c.a, c.m !== o.m] })()`, []any{true, true, 0., true, 2., false, true}},
		"structuredClone fn":          {`(() => { try { structuredClone({f() {}}) } catch (e) { return e.name } })()`, "DataCloneError"},
		"queueMicrotask":              {`(async () => { const o = []; queueMicrotask(() => o.push('micro')); o.push('sync'); await null; return o })()`, []any{"sync", "micro"}},
		"Headers":                     {`(() => { const h = new Headers({'Content-Type': 'a'}); h.append('X-A', '1'); h.append('x-a', '2'); return [h.get('content-type'), h.get('X-A'), h.has('nope'), [...h.keys()]] })()`, []any{"a", "1, 2", false, []any{"content-type", "x-a"}}},
		"Response":                    {`(async () => { const r = new Response('{"a":1}', {status: 404, headers: {'X': 'y'}}); return [r.status, r.ok, r.statusText, r.headers.get('x'), (await r.clone().json()).a, await r.text()] })()`, []any{404., false, "Not Found", "y", 1., `{"a":1}`}},
		"Response.json":               {`(async () => { const r = Response.json({b: 2}); return [r.headers.get('content-type'), await r.text()] })()`, []any{"application/json", `{"b":2}`}},
		"atob btoa":                   {`[btoa('hé'), atob('aOk=') === 'h\u00e9']`, []any{"aOk=", true}},
		"Buffer":                      {`[Buffer.from('hé').toString('base64'), Buffer.from('aOk', 'base64').length, Buffer.from([1, 255]).toString('hex'), Buffer.concat([Buffer.from('a'), Buffer.from('b')]).toString()]`, []any{"aMOp", 2., "01ff", "ab"}},
		"crypto":                      {`[/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(crypto.randomUUID()), crypto.getRandomValues(new Uint32Array(4)).length]`, []any{true, 4.}},
		"performance":                 {`typeof performance.now() === 'number' && performance.now() >= 0`, true},
		"Date is real":                {`Date.now() > 1.7e12`, true},
		"no environment":              {`Object.keys(process.env).length`, 0.},
		"no Intl":                     {`typeof Intl`, "undefined"},
		"AbortController":             {`(async () => { const c = new AbortController(); const p = fetch('https://a.b/', {signal: c.signal}); c.abort(); try { await p } catch (e) { return [e.name, c.signal.aborted] } })()`, []any{"AbortError", true}},
		"fetch needs a URL":           {`fetch('/relative').catch((e) => e.name)`, "TypeError"},
		"readline over another input": {`(async () => { const { createInterface } = await import('node:readline'); const src = { on(n, fn) { this.fn = fn }, off() {} }; const rl = createInterface({ input: src }); const got = []; rl.on('line', (l) => got.push(l)); src.fn('a\nb'); src.fn('\r\nc\n'); src.fn(new TextEncoder().encode('é\n')); return got })()`, []any{"a", "b", "c", "é"}},
		"importing elsewhere":         {`import('node:os').catch((e) => e.message)`, "Cannot find module 'node:os': run.js provides node:fs and node:readline only"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			in := start(t, `process.stderr.write(JSON.stringify({v: await (`+c.expr+`)}) + '\n')`, instanceOptions{})
			var got struct{ V any }
			if err := json.Unmarshal([]byte(in.stderr.String()), &got); err != nil {
				t.Fatalf("%v; stderr %q, ended %v", err, in.stderr.String(), in.ended)
			}
			if diff := cmp.Diff(c.want, got.V); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
