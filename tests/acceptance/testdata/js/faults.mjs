// A run.js bundle written by hand for the acceptance tests: it answers
// js/echo, reads its root JSON file both ways, and on js/arm logs "armed"
// then does the fault its params name from a 10 ms timer.
import { createInterface } from "node:readline";
import { readFileSync } from "node:fs";

const arg = (p) => (Array.isArray(p) ? p[0] : p);
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
const log = (message) => send({ jsonrpc: "2.0", method: "log", params: { level: "info", message } });
let kept = [];

function recurse(n) {
  return recurse(n + 1) + 1;
}

const faults = {
  loop: () => {
    for (;;) {}
  },
  regex: () => /^(a+)+$/.test("a".repeat(40) + "!"),
  recurse: () => recurse(0),
  grow: () => {
    // One buffer past the 64 MB: the limit acts at once, however loaded
    // the machine.
    for (;;) kept.push(new Uint8Array(96 << 20));
  },
  throw: () => {
    throw new Error("boom");
  },
};

const methods = {
  "js/echo": (p) => p,
  "js/read": () => ({
    url: JSON.parse(readFileSync(new URL("../rules.json", globalThis._importMeta_.url), "utf8")),
    bare: JSON.parse(readFileSync("rules.json", "utf8")),
  }),
  "js/arm": (p) => {
    const what = arg(p);
    log("armed " + what);
    setTimeout(faults[what], 10);
    return null;
  },
};

// Requests to the host, by id, waiting for their answer.
const waiting = new Map();
let nextId = 0;
function ask(method, params, then) {
  const id = "h" + ++nextId;
  waiting.set(id, then);
  send({ jsonrpc: "2.0", id, method, params });
}

// Methods answered once the host answered a request of theirs.
const later = {
  "js/secret": (p, done) =>
    ask("secrets/get", { key: "token" }, (a) => {
      log("the token is " + a.result);
      process.stderr.write("stderr says the token is " + a.result + "\n");
      done(a.result !== null);
    }),
  "js/readfile": (p, done) => ask("files/read", { path: arg(p) }, (a) => done(a.result ?? a.error)),
};

createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method === undefined && waiting.has(m.id)) {
    const then = waiting.get(m.id);
    waiting.delete(m.id);
    return then(m);
  }
  if (m.id === undefined || m.method === undefined) return;
  if (later[m.method]) return later[m.method](m.params, (r) => send({ jsonrpc: "2.0", id: m.id, result: r }));
  if (m.method === "initialize") return send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: 1, capabilities: {} } });
  if (m.method === "shutdown") {
    send({ jsonrpc: "2.0", id: m.id, result: null });
    return process.exit(0);
  }
  const f = methods[m.method];
  if (!f) return send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
  send({ jsonrpc: "2.0", id: m.id, result: f(m.params) ?? null });
});
