// The plugin as the run.js engine runs it (runtime "wasm"): timers and fetch
// go through the host (timer/set, timer/clear, timer/fired, net/fetch).

import { test } from "node:test";
import assert from "node:assert/strict";
import { FakeHost } from "./helpers.mjs";

test("setTimer asks timer/set and fires on timer/fired", async () => {
  const h = new FakeHost({ runtime: "wasm" });
  h.plugin.method("t/sleep", async (p, ctx) => {
    await ctx.plugin.sleep(p.ms);
    return "woke";
  });
  h.start();
  h.call(1, "t/sleep", { ms: 25 });
  const set = await h.request("timer/set");
  assert.deepEqual(set.params, { ms: 25 });
  h.reply(set, { timer: 7 });
  h.send({ jsonrpc: "2.0", method: "timer/fired", params: { timer: 7 } });
  assert.equal(await h.answer("1"), `{"jsonrpc":"2.0","id":1,"result":"woke"}`);
});

test("a timer/fired that comes before its timer/set answer fires it when the answer comes", async () => {
  const h = new FakeHost({ runtime: "wasm" });
  h.plugin.method("t/sleep", async (_p, ctx) => {
    await ctx.plugin.sleep(10);
    return "woke";
  });
  h.start();
  h.call(1, "t/sleep");
  const set = await h.request("timer/set");
  h.send({ jsonrpc: "2.0", method: "timer/fired", params: { timer: 3 } });
  h.reply(set, { timer: 3 });
  assert.equal(JSON.parse(await h.answer("1")).result, "woke");
});

test("clearTimer asks timer/clear, even when cleared before timer/set is answered", async () => {
  const h = new FakeHost({ runtime: "wasm" });
  let fired = false;
  h.plugin.method("t/clear", (_p, ctx) => {
    const a = ctx.plugin.setTimer(() => (fired = true), 100);
    ctx.plugin.clearTimer(a);
    return null;
  });
  h.plugin.method("t/clearLater", (_p, ctx) => {
    h.later = ctx.plugin.setTimer(() => (fired = true), 100);
    return null;
  });
  h.plugin.method("t/doClear", (_p, ctx) => {
    ctx.plugin.clearTimer(h.later);
    return null;
  });
  h.start();
  h.call(1, "t/clear");
  const set = await h.request("timer/set");
  h.reply(set, { timer: 1 });
  assert.deepEqual((await h.request("timer/clear")).params, { timer: 1 });

  h.call(2, "t/clearLater");
  h.reply(await h.request("timer/set"), { timer: 2 });
  await h.answer("2");
  await new Promise((r) => setImmediate(r)); // the answer of timer/set is taken in
  h.call(3, "t/doClear");
  assert.deepEqual((await h.request("timer/clear")).params, { timer: 2 });
  h.send({ jsonrpc: "2.0", method: "timer/fired", params: { timer: 2 } });
  h.call(4, "t/doClear");
  await h.answer("4");
  assert.equal(fired, false);
});

test("a host call's delay in WASM is kept with a host timer", async () => {
  const h = new FakeHost({ runtime: "wasm" });
  h.plugin.method("t/wait", (_p, ctx) =>
    ctx.plugin.call("settings/get", {}, { timeoutMs: 50 }).then(
      () => "answered",
      (e) => e.message,
    ),
  );
  h.start();
  h.call(1, "t/wait");
  await h.request("settings/get");
  const set = await h.request("timer/set");
  assert.deepEqual(set.params, { ms: 50 });
  h.reply(set, { timer: 9 });
  await new Promise((r) => setImmediate(r));
  h.send({ jsonrpc: "2.0", method: "timer/fired", params: { timer: 9 } });
  assert.equal(JSON.parse(await h.answer("1")).result, "settings/get: no answer within 50 ms");
});

test("an answered call clears its delay's host timer", async () => {
  const h = new FakeHost({ runtime: "wasm" });
  h.plugin.method("t/ask", (_p, ctx) => ctx.plugin.call("settings/get", {}, { timeoutMs: 1000 }));
  h.start();
  h.call(1, "t/ask");
  const req = await h.request("settings/get");
  h.reply(await h.request("timer/set"), { timer: 4 });
  await new Promise((r) => setImmediate(r));
  h.reply(req, { a: 1 });
  assert.deepEqual(JSON.parse(await h.answer("1")).result, { a: 1 });
  assert.deepEqual((await h.request("timer/clear")).params, { timer: 4 });
});

test("without a timer/set at the host (-32601) timers fall back to setTimeout", async () => {
  const h = new FakeHost({ runtime: "wasm" });
  h.plugin.method("t/sleep", async (_p, ctx) => {
    await ctx.plugin.sleep(1);
    return "woke";
  });
  h.start();
  h.call(1, "t/sleep");
  h.replyError(await h.request("timer/set"), -32601, "Method not found");
  assert.equal(JSON.parse(await h.answer("1")).result, "woke");
});

test("fetch goes through net/fetch, and its refusal keeps its code", async () => {
  const h = new FakeHost({ runtime: "wasm" });
  h.plugin.method("t/fetch", (p, ctx) =>
    ctx.plugin.fetch(p.url, { headers: { accept: "text/plain" } }).catch((e) => ({ code: e.code, reason: e.reason })),
  );
  h.start();
  h.call(1, "t/fetch", { url: "https://api.example.com/x" });
  const req = await h.request("net/fetch");
  assert.deepEqual(req.params, { url: "https://api.example.com/x", headers: { accept: "text/plain" } });
  const answer = { status: 200, headers: { "Content-Type": "text/plain", "X-A": "1", "x-a": "2" }, body: "hi", bodyEncoding: "utf8" };
  h.reply(req, answer);
  const want = { status: 200, headers: { "content-type": "text/plain", "x-a": "1, 2" }, body: "hi", bodyEncoding: "utf8" };
  assert.deepEqual(JSON.parse(await h.answer("1")).result, want, "header names in lower case, as under node");

  h.call(2, "t/fetch", { url: "https://example.org/" });
  h.replyError(await h.request("net/fetch"), -32003, "The plugin may not reach it", { reason: "example.org is not in permissions.network" });
  assert.deepEqual(JSON.parse(await h.answer("2")).result, { code: -32003, reason: "example.org is not in permissions.network" });
});

/** Resolves once the promise jobs of the line just sent have run. */
const lineDone = () => new Promise((resolve) => setImmediate(resolve));

test("a body past what net/fetch carries is read through net/stream, in net/fetch's shape", async () => {
  const h = new FakeHost({ runtime: "wasm" });
  h.plugin.method("t/big", async (p, ctx) => {
    const r = await ctx.plugin.fetch(p.url).catch((e) => ({ code: e.code, reason: e.reason }));
    return r.body === undefined ? r : { status: r.status, type: r.headers["content-type"], encoding: r.bodyEncoding, size: r.body.length, head: r.body.slice(0, 8) };
  });
  h.start();
  const over = { reason: "https://files.example.com/big: the body is over the 4194304 bytes a net/fetch answer carries (limits.netMaxBytes 16777216 holds for net/stream): read it through net/stream" };

  // 10 MiB of text in chunks of 32 KiB.
  h.call(1, "t/big", { url: "https://files.example.com/big" });
  h.replyError(await h.request("net/fetch"), -32004, "The request failed on the way.", over);
  const stream = await h.request("net/stream");
  assert.deepEqual(stream.params, { url: "https://files.example.com/big" });
  h.reply(stream, { stream: 3, status: 200, headers: { "Content-Type": "text/plain" } });
  await lineDone(); // the engine runs each stdin line as a task, its promise jobs after it
  const chunk = "abcdefgh".repeat(4096);
  for (let i = 0; i < 320; i++) h.send({ jsonrpc: "2.0", method: "net/chunk", params: { stream: 3, data: chunk, bodyEncoding: "utf8" } });
  h.send({ jsonrpc: "2.0", method: "net/end", params: { stream: 3 } });
  assert.deepEqual(JSON.parse(await h.answer("1")).result, { status: 200, type: "text/plain", encoding: "utf8", size: 10 << 20, head: "abcdefgh" });

  // Bytes that are not UTF-8 come back in base64; an end with an error fails the fetch.
  h.call(2, "t/big", { url: "https://files.example.com/bin" });
  h.replyError(await h.request("net/fetch"), -32004, "The request failed on the way.", over);
  const bin = await h.request("net/stream");
  h.reply(bin, { stream: 4, status: 200, headers: {} });
  await lineDone();
  h.send({ jsonrpc: "2.0", method: "net/chunk", params: { stream: 4, data: "//79", bodyEncoding: "base64" } });
  h.send({ jsonrpc: "2.0", method: "net/end", params: { stream: 4 } });
  assert.deepEqual(JSON.parse(await h.answer("2")).result, { status: 200, encoding: "base64", size: 4, head: "//79" });

  h.call(3, "t/big", { url: "https://files.example.com/huge" });
  h.replyError(await h.request("net/fetch"), -32004, "The request failed on the way.", over);
  const huge = await h.request("net/stream");
  h.reply(huge, { stream: 5, status: 200, headers: {} });
  await lineDone();
  h.send({ jsonrpc: "2.0", method: "net/end", params: { stream: 5, error: "https://files.example.com/huge: the body is over the limit of 16777216 bytes" } });
  assert.deepEqual(JSON.parse(await h.answer("3")).result, { code: -32004, reason: "https://files.example.com/huge: the body is over the limit of 16777216 bytes" });
});
