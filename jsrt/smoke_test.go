package jsrt

import "testing"

func TestSmoke(t *testing.T) {
	in := start(t, `
import { createInterface } from 'node:readline';
console.log('hello', {a: 1});
const rl = createInterface({ input: process.stdin });
rl.on('line', async (l) => { const m = JSON.parse(l); await null; process.stdout.write(JSON.stringify({echo: m}) + '\n'); });
`, instanceOptions{})
	t.Logf("ended=%v stderr=%q", in.ended, in.stderr.String())
	out := in.send(`{"a":1}`, `{"b":2}`)
	t.Logf("out=%q ended=%v stderr=%q", out, in.ended, in.stderr.String())
}
