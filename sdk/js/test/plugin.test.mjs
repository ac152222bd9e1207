// The plugin against a host played by the test: the handshake, methods,
// errors, batches both ways, events, the host's services and shutdown.

import { test, mock } from "node:test";
import assert from "node:assert/strict";
import { Plugin, RpcError, CallTimeoutError, codes } from "../dist/index.js";
import { FakeHost } from "./helpers.mjs";

test("initialize is answered with protocol 1 and the capabilities", async () => {
  const h = new FakeHost();
  h.start();
  const got = await h.initialize();
  assert.deepEqual(got, { jsonrpc: "2.0", id: 1, result: { protocolVersion: 1, capabilities: { batch: true, attach: false } } });
  assert.equal(h.plugin.init.plugin.id, "dev.test.js");

  const withAttach = new FakeHost();
  withAttach.plugin.onAttach((params) => ({ attached: params.agent }));
  withAttach.start();
  assert.deepEqual((await withAttach.initialize()).result.capabilities, { batch: true, attach: true });
  withAttach.call(2, "agent/attach", { agent: "a1", session: "s" });
  assert.deepEqual(JSON.parse(await withAttach.answer("2")).result, { attached: "a1" });
});

test("a method's answer carries the id byte for byte", async () => {
  const h = new FakeHost();
  h.plugin.method("t/echo", (params, ctx) => ({ params, id: ctx.id }));
  h.start();
  h.send(`{"jsonrpc":"2.0","id":9007199254740993,"method":"t/echo","params":{"n":1}}`);
  assert.equal(await h.answer("9007199254740993"), `{"jsonrpc":"2.0","id":9007199254740993,"result":{"params":{"n":1},"id":"9007199254740993"}}`);
  h.send(`{"jsonrpc":"2.0","id":"a\\"b\\u0041","method":"t/echo"}`);
  assert.equal(await h.answer(`"a\\"b\\u0041"`), `{"jsonrpc":"2.0","id":"a\\"b\\u0041","result":{"id":"\\"a\\\\\\"b\\\\u0041\\""}}`);
});

test("errors go with their code; anything else is -32603; unknown methods -32601", async () => {
  const h = new FakeHost();
  h.plugin.method("t/refuse", () => {
    throw RpcError.invalidParams("name is required");
  });
  h.plugin.method("t/custom", async () => {
    throw new RpcError(-32050, "custom", { reason: "why" });
  });
  h.plugin.method("t/bug", () => {
    throw new TypeError("oops");
  });
  h.start();
  const cases = [
    ["t/refuse", { code: -32602, message: "Invalid params: name is required" }],
    ["t/custom", { code: -32050, message: "custom", data: { reason: "why" } }],
    ["t/bug", { code: -32603, message: "oops" }],
    ["t/none", { code: -32601, message: "Method not found", data: { reason: "no such method: t/none" } }],
  ];
  let id = 10;
  for (const [method, error] of cases) {
    h.call(++id, method);
    assert.deepEqual(JSON.parse(await h.answer(String(id))).error, error, method);
  }
  await h.traced("t/bug failed: TypeError: oops");
});

test("a bad line is answered with id null and the plugin keeps serving", async () => {
  const h = new FakeHost();
  h.plugin.method("t/ok", () => "ok");
  h.start();
  for (const [line, code] of [["not json", -32700], ["[]", -32600], [`{"jsonrpc":"2.0","id":{},"method":"t/ok"}`, -32600]]) {
    h.send(line);
    assert.deepEqual(JSON.parse(await h.answer("null")).error.code, code, line);
  }
  h.call(3, "t/ok");
  assert.equal(await h.answer("3"), `{"jsonrpc":"2.0","id":3,"result":"ok"}`);
});

test("a batch is answered by one array; a batch of notifications by nothing", async () => {
  const h = new FakeHost();
  const seen = [];
  let third;
  const gotThird = new Promise((r) => (third = r));
  h.plugin.method("t/slow", () => new Promise((r) => setImmediate(() => r("slow"))));
  h.plugin.method("t/fast", () => "fast");
  h.plugin.on("ping", (p) => {
    seen.push(p.n);
    if (p.n === 3) third();
  });
  h.start();
  h.send(
    `[{"jsonrpc":"2.0","id":9007199254740993,"method":"t/slow"},{"jsonrpc":"2.0","method":"event/ping","params":{"n":1}},{"jsonrpc":"2.0","id":"b","method":"t/fast"},5]`,
  );
  const batch = JSON.parse((await h.next((l) => l.startsWith("["))).replace("9007199254740993", '"big"'));
  assert.deepEqual(
    batch.sort((a, b) => String(a.id).localeCompare(String(b.id))),
    [
      { jsonrpc: "2.0", id: "b", result: "fast" },
      { jsonrpc: "2.0", id: "big", result: "slow" },
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request" } },
    ].sort((a, b) => String(a.id).localeCompare(String(b.id))),
  );
  h.send(`[{"jsonrpc":"2.0","method":"event/ping","params":{"n":2}},{"jsonrpc":"2.0","method":"event/ping","params":{"n":3}}]`);
  await gotThird;
  h.call(4, "t/fast");
  await h.answer("4");
  assert.deepEqual(h.lines, [], "no answer to a batch of notifications");
  assert.deepEqual(seen, [1, 2, 3]);
});

test("events run one at a time, in the order the host sent them", async () => {
  const h = new FakeHost();
  const order = [];
  h.plugin.on("tick", async (p) => {
    order.push(`start ${p.n}`);
    await new Promise((r) => setImmediate(r));
    order.push(`end ${p.n}`);
  });
  let done;
  const finished = new Promise((r) => (done = r));
  h.plugin.on("last", () => done());
  h.start();
  for (const n of [1, 2, 3]) h.send({ jsonrpc: "2.0", method: "event/tick", params: { n } });
  h.send({ jsonrpc: "2.0", method: "event/last" });
  await finished;
  assert.deepEqual(order, ["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"]);
});

test("a handler calls the host: secret, settings, readFile, log", async () => {
  const h = new FakeHost();
  h.plugin.method("t/all", async (_p, ctx) => {
    const p = ctx.plugin;
    const [secret, settings, words] = await Promise.all([p.secret("token"), p.settings("proj"), p.readFile("data/w.txt")]);
    p.log("info", "done");
    return { secret, settings, words };
  });
  h.start();
  h.call(5, "t/all");
  const s = await h.request("secrets/get");
  assert.deepEqual(s.params, { key: "token" });
  const st = await h.request("settings/get");
  assert.deepEqual(st.params, { project: "proj" });
  const f = await h.request("files/read");
  assert.deepEqual(f.params, { path: "data/w.txt" });
  h.reply(f, "a\nb\n");
  h.reply(st, { greeting: "Hi" });
  h.reply(s, "hunter2");
  assert.deepEqual(await h.nextJSON((m) => m.method === "log"), { jsonrpc: "2.0", method: "log", params: { level: "info", message: "done" } });
  assert.deepEqual(JSON.parse(await h.answer("5")).result, { secret: "hunter2", settings: { greeting: "Hi" }, words: "a\nb\n" });
});

test("a refusal of the host rejects with its code and reason", async () => {
  const h = new FakeHost();
  h.plugin.method("t/secret", async (_p, ctx) => {
    try {
      await ctx.plugin.secret("other");
      return "no error";
    } catch (e) {
      return { code: e.code, reason: e.reason, isRpc: e instanceof RpcError, notYours: e.code === codes.NotYours };
    }
  });
  h.start();
  h.call(6, "t/secret");
  h.replyError(await h.request("secrets/get"), -32001, "The secret is not the plugin's", { reason: "not granted" });
  assert.deepEqual(JSON.parse(await h.answer("6")).result, { code: -32001, reason: "not granted", isRpc: true, notYours: true });
});

test("a batch to the host is one line, and its outcomes come in the order of the calls", async () => {
  const h = new FakeHost();
  h.plugin.method("t/batch", async (_p, ctx) => {
    const out = await ctx.plugin.batch([
      { method: "secrets/get", params: { key: "a" } },
      { method: "log", params: { level: "info", message: "in a batch" }, notify: true },
      { method: "settings/get", params: {} },
    ]);
    return out.map((o) => (o.error ? { code: o.error.code } : o));
  });
  h.start();
  h.call(7, "t/batch");
  const line = await h.next((l) => l.startsWith("["));
  const members = JSON.parse(line);
  assert.deepEqual(
    members.map((m) => m.method),
    ["secrets/get", "log", "settings/get"],
  );
  assert.equal("id" in members[1], false);
  // The host answers a batch with one array, in any order.
  h.send(JSON.stringify([
    { jsonrpc: "2.0", id: members[2].id, result: { x: 1 } },
    { jsonrpc: "2.0", id: members[0].id, error: { code: -32001, message: "no" } },
  ]));
  assert.deepEqual(JSON.parse(await h.answer("7")).result, [{ code: -32001 }, {}, { result: { x: 1 } }]);
});

test("a call to the host without an answer within its delay times out; the late answer is ignored", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const h = new FakeHost({ options: { callTimeoutMs: 5000 } });
  h.plugin.method("t/wait", async (_p, ctx) => {
    try {
      await ctx.plugin.settings();
      return "answered";
    } catch (e) {
      return { timeout: e instanceof CallTimeoutError, message: e.message };
    }
  });
  h.plugin.method("t/quick", (_p, ctx) => ctx.plugin.call("files/read", { path: "x" }, { timeoutMs: 300 }).catch((e) => e.message));
  h.start();
  h.call(8, "t/wait");
  const req = await h.request("settings/get");
  h.call(9, "t/quick");
  await h.request("files/read");
  t.mock.timers.tick(300);
  assert.deepEqual(JSON.parse(await h.answer("9")).result, "files/read: no answer within 300 ms");
  t.mock.timers.tick(4700);
  assert.deepEqual(JSON.parse(await h.answer("8")).result, { timeout: true, message: "settings/get: no answer within 5 s" });
  h.reply(req, {});
  await h.traced("settings/get: late answer ignored");
});

test("shutdown is answered with null first, the calls under way answer, then the program exits", async () => {
  const h = new FakeHost();
  let release;
  h.plugin.method("t/held", () => new Promise((r) => (release = r)));
  h.start();
  h.call(10, "t/held");
  h.call(11, "shutdown");
  assert.equal(await h.answer("11"), `{"jsonrpc":"2.0","id":11,"result":null}`);
  h.call(12, "t/held");
  release("late but answered");
  assert.equal(await h.answer("10"), `{"jsonrpc":"2.0","id":10,"result":"late but answered"}`);
  await h.conn.stopped;
  assert.deepEqual(h.lines, [], "a call after shutdown is not taken");
});

test("the end of input stops the plugin and aborts the handlers' signal", async () => {
  const h = new FakeHost();
  let signal;
  h.plugin.method("t/sig", (_p, ctx) => {
    signal = ctx.signal;
    return null;
  });
  h.start();
  h.call(1, "t/sig");
  await h.answer("1");
  assert.equal(signal.aborted, false);
  h.conn.end();
  await h.conn.stopped;
  assert.equal(signal.aborted, true);
  await assert.rejects(h.plugin.secret("x"), /not connected to the host/);
});

test("an answer too long for one line becomes -32004 naming the limit", async () => {
  const h = new FakeHost();
  h.plugin.method("t/huge", () => "x".repeat(8 << 20));
  h.start();
  h.call(13, "t/huge");
  assert.deepEqual(JSON.parse(await h.answer("13")).error, { code: -32004, message: "the answer would exceed the 8 MiB line limit" });
});

test("log sends a notification; a bad level goes as info, with a trace", async () => {
  const h = new FakeHost();
  h.plugin.method("t/log", (_p, ctx) => {
    ctx.plugin.log("loud", "x");
    return null;
  });
  h.start();
  h.call(14, "t/log");
  assert.deepEqual((await h.nextJSON((m) => m.method === "log")).params, { level: "info", message: "x" });
  await h.traced(`log level "loud" is not debug, info, warn or error`);
});

test("registering what the SDK serves itself is refused", () => {
  const p = new Plugin({ runtime: "node" });
  assert.throws(() => p.method("initialize", () => 1), /answers initialize itself/);
  assert.throws(() => p.method("shutdown", () => 1), /answers shutdown itself/);
  assert.throws(() => p.method("agent/attach", () => 1), /use onAttach/);
  assert.throws(() => p.method("event/x", () => 1), /use on\("x"\)/);
  p.method("a/b", () => 1);
  assert.throws(() => p.method("a/b", () => 1), /twice/);
  assert.throws(() => p.on("event/x", () => 1), /without "event\/"/);
});

test("a shutdown sent as a notification stops the plugin too", async () => {
  const h = new FakeHost();
  h.start();
  h.send({ jsonrpc: "2.0", method: "shutdown" });
  await h.conn.stopped;
});

test("mock timers are restored", () => {
  mock.timers.reset();
});

test("p.file reads a file of a subfolder through files/read, and a root JSON file at once", async () => {
  const h = new FakeHost();
  h.plugin.method("t/file", async (_p, ctx) => {
    const words = await ctx.plugin.file("data/words.txt");
    const notes = await ctx.plugin.file("notes.txt");
    return { words, notes };
  });
  h.start();
  h.call(6, "t/file");
  const f = await h.request("files/read");
  assert.deepEqual(f.params, { path: "data/words.txt" });
  h.reply(f, "bonjour hello\n");
  const g = await h.request("files/read");
  assert.deepEqual(g.params, { path: "notes.txt" });
  h.reply(g, "n");
  assert.deepEqual(JSON.parse(await h.answer("6")).result, { words: "bonjour hello\n", notes: "n" });
});

test("a trace of an exception says what was thrown even when the stack holds frames only (the run.js engine's)", async () => {
  const { describeError } = await import("../dist/errors.js");
  const e = new Error("boom");
  e.stack = "    at f (file:///plugin/dist/plugin.mjs:3:9)\n";
  assert.equal(describeError(e), "Error: boom\n    at f (file:///plugin/dist/plugin.mjs:3:9)");
  const node = new Error("bang");
  assert.equal(describeError(node), node.stack);
  assert.equal(describeError("text"), "text");
});
