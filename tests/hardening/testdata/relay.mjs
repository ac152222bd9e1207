// A run.js bundle for the hardening tests: relay/ask sends the host n
// copies of one request at once ({method, params, n}) and answers the
// list of the host's answers, each {result} or {error}, in order.
import { createInterface } from "node:readline";

const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
const waiting = new Map();
let nextId = 0;

function relay(p, done) {
  const n = p.n ?? 1;
  const answers = new Array(n);
  let left = n;
  for (let i = 0; i < n; i++) {
    const id = "h" + ++nextId;
    waiting.set(id, (a) => {
      answers[i] = a.error !== undefined ? { error: a.error } : { result: a.result };
      if (--left === 0) done(answers);
    });
    send({ jsonrpc: "2.0", id, method: p.method, params: p.params });
  }
}

createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method === undefined && waiting.has(m.id)) {
    const then = waiting.get(m.id);
    waiting.delete(m.id);
    return then(m);
  }
  if (m.id === undefined || m.method === undefined) return; // net/chunk, net/end
  if (m.method === "initialize") return send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: 1, capabilities: {} } });
  if (m.method === "shutdown") {
    send({ jsonrpc: "2.0", id: m.id, result: null });
    return process.exit(0);
  }
  if (m.method === "relay/ask") return relay(m.params, (r) => send({ jsonrpc: "2.0", id: m.id, result: r }));
  send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
});
