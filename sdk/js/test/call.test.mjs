// The path of one call from the host to a handler and back: a value is
// answered within the line's own turn, a promise or any thenable when it
// settles, and nothing a handler returns or the output does escapes as an
// exception of the line.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Plugin } from "../dist/index.js";
import { stdio } from "../dist/runtime.js";
import { FakeHost } from "./helpers.mjs";

test("a handler's value is answered before receive returns, with no promise job", () => {
  for (const runtime of ["node", "wasm"]) {
    const h = new FakeHost({ runtime });
    h.plugin.method("t/echo", (params) => params);
    h.start();
    h.send(`{"jsonrpc":"2.0","id":3,"method":"t/echo","params":{"a":[1]}}`);
    assert.deepEqual(h.lines, [`{"jsonrpc":"2.0","id":3,"result":{"a":[1]}}`], runtime);
  }
});

test("a promise, or any thenable, is answered once it settles", async () => {
  const h = new FakeHost();
  let resolveThen;
  h.plugin.method("t/thenable", () => ({ then: (ok) => (resolveThen = ok) }));
  h.plugin.method("t/rejects", () => Promise.reject(new Error("later")));
  h.start();
  h.call(1, "t/thenable");
  h.call(2, "t/rejects");
  assert.deepEqual(h.lines, []);
  assert.equal(JSON.parse(await h.answer("2")).error.message, "later");
  resolveThen("done");
  assert.equal(await h.answer("1"), `{"jsonrpc":"2.0","id":1,"result":"done"}`);
});

test("a result without JSON text is answered -32603, at once or later", async () => {
  const h = new FakeHost();
  h.plugin.method("t/big", () => 1n);
  h.plugin.method("t/bigLater", async () => 1n);
  h.start();
  h.call(1, "t/big");
  assert.equal(JSON.parse(h.lines.shift()).error.code, -32603);
  h.call(2, "t/bigLater");
  assert.equal(JSON.parse(await h.answer("2")).error.code, -32603);
  await h.traced("t/bigLater failed");
});

test("a thenable whose then throws fails its call, not the line", async () => {
  const h = new FakeHost();
  h.plugin.method("t/badThen", () => ({
    get then() {
      throw new Error("no then");
    },
  }));
  h.start();
  h.call(1, "t/badThen");
  assert.equal(JSON.parse(await h.answer("1")).error.message, "no then");
});

test("an output that throws is traced; the line does not throw", async () => {
  const p = new Plugin({ runtime: "wasm" });
  p.method("t/echo", (params) => params);
  p.method("t/later", async (params) => params);
  const traces = [];
  let traced;
  const conn = p.serve({
    write: () => {
      throw new Error("stdout is gone");
    },
    trace: (t) => {
      traces.push(t);
      traced?.();
    },
    exit: () => {},
  });
  assert.doesNotThrow(() => conn.receive(`{"jsonrpc":"2.0","id":1,"method":"t/echo"}`));
  assert.match(traces.join("\n"), /stdout is gone/);
  traces.length = 0;
  const later = new Promise((r) => (traced = r));
  conn.receive(`{"jsonrpc":"2.0","id":2,"method":"t/later"}`);
  await later;
  assert.match(traces.join("\n"), /stdout is gone/);
});

test("under the run.js engine a line is written without a callback, and exit does not wait", () => {
  const real = globalThis.process;
  const writes = [];
  const exits = [];
  const engine = {
    stdout: { write: (chunk, cb) => (writes.push([chunk, cb]), true) },
    stderr: { write: () => true },
    exit: (code) => exits.push(code),
  };
  try {
    globalThis.process = engine; // no versions.node: the engine
    const io = stdio();
    io.write("a");
    io.exit(0);
  } finally {
    globalThis.process = real;
  }
  assert.deepEqual(writes, [["a\n", undefined]]);
  assert.deepEqual(exits, [0]);
});

test("under node exit waits for the line's callback", () => {
  const real = globalThis.process;
  const writes = [];
  const exits = [];
  const node = {
    versions: { node: "20" },
    stdout: { write: (chunk, cb) => (writes.push([chunk, cb]), true) },
    stderr: { write: () => true },
    exit: (code) => exits.push(code),
  };
  try {
    globalThis.process = node;
    const io = stdio();
    io.write("a");
    io.exit(0);
  } finally {
    globalThis.process = real;
  }
  assert.deepEqual(exits, [], "a line is still on its way");
  writes[0][1]();
  assert.deepEqual(exits, [0]);
});

test("a thrown value whose text throws leaves the line without an answer, traced, alone or in a batch", async () => {
  const h = new FakeHost();
  const untellable = {
    toString() {
      throw new Error("no text");
    },
  };
  h.plugin.method("t/untellable", () => {
    throw untellable;
  });
  h.plugin.method("t/echo", (p) => p);
  h.start();
  assert.doesNotThrow(() => h.call(1, "t/untellable"));
  await h.traced("no text");
  h.traces = [];
  assert.doesNotThrow(() => h.send(`[{"jsonrpc":"2.0","id":2,"method":"t/untellable"},{"jsonrpc":"2.0","id":3,"method":"t/echo"}]`));
  await h.traced("no text");
  h.call(4, "t/echo", { still: "serving" });
  assert.equal(await h.answer("4"), `{"jsonrpc":"2.0","id":4,"result":{"still":"serving"}}`);
  assert.deepEqual(h.lines, [], "neither the call nor its batch was answered");
});
