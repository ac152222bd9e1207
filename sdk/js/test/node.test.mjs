// What the plugin does on its own under node: fetch with node's fetch in
// net/fetch's shape, and the root JSON files read with readFileSync.

import { test, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Plugin, bodyBytes } from "../dist/index.js";
import { FakeHost } from "./helpers.mjs";

const server = createServer((req, res) => {
  if (req.url === "/text") {
    res.setHeader("x-twice", ["a", "b"]);
    res.end(`${req.method} ${req.headers["x-test"] ?? ""} é`);
  } else if (req.url === "/binary") res.end(Buffer.from([0xff, 0x00, 0xfe]));
  else if (req.url === "/redirect") {
    res.writeHead(302, { location: "/text" });
    res.end();
  } else if (req.url === "/big") res.end("x".repeat(101));
  else if (req.url === "/echo") {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => res.end(Buffer.concat(chunks).toString("hex")));
  }
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}`;
after(() => server.close());

const made = [];
after(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));
function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

function fetcher(limits) {
  const h = new FakeHost({ options: limits ? { fetchLimits: limits } : {} });
  h.plugin.method("t/fetch", (p, ctx) => ctx.plugin.fetch(p).catch((e) => ({ code: e.code, reason: e.reason })));
  return h.start();
}

async function fetchVia(h, params, id) {
  h.call(id, "t/fetch", params);
  return JSON.parse(await h.answer(String(id))).result;
}

test("under node, fetch answers in net/fetch's shape without asking the host", async () => {
  const h = fetcher();
  const r = await fetchVia(h, { url: `${base}/text`, method: "POST", headers: { "x-test": "yes", connection: "close" } }, 1);
  assert.equal(r.status, 200);
  assert.equal(r.body, "POST yes é");
  assert.equal(r.bodyEncoding, "utf8");
  assert.equal(r.headers["x-twice"], "a, b");
  const bin = await fetchVia(h, { url: `${base}/binary` }, 2);
  assert.deepEqual([bin.body, bin.bodyEncoding], ["/wD+", "base64"]);
  assert.deepEqual([...bodyBytes(bin)], [0xff, 0x00, 0xfe]);
  const posted = await fetchVia(h, { url: `${base}/echo`, method: "PUT", body: "AAEC", bodyEncoding: "base64" }, 3);
  assert.equal(posted.body, "000102");
  assert.equal(h.lines.filter((l) => l.includes("net/fetch")).length, 0, "the host is not asked");
});

test("under node, fetch follows no redirect, keeps the size limit and refuses CONNECT", async () => {
  const h = fetcher({ maxBytes: 100 });
  const r = await fetchVia(h, { url: `${base}/redirect` }, 1);
  assert.deepEqual([r.status, r.headers.location], [302, "/text"]);
  assert.deepEqual(await fetchVia(h, { url: `${base}/big` }, 2), { code: -32004, reason: "the answer is over the limit of 100 bytes" });
  assert.deepEqual(await fetchVia(h, { url: `${base}/text`, method: "CONNECT" }, 3), { code: -32003, reason: "the method CONNECT is refused" });
  const down = await fetchVia(h, { url: "http://127.0.0.1:1/" }, 4);
  assert.equal(down.code, -32004);
});

test("bodyBytes encodes UTF-8 text as UTF-8", () => {
  const text = "aé✓😀";
  assert.deepEqual([...bodyBytes({ body: text, bodyEncoding: "utf8" })], [...Buffer.from(text, "utf8")]);
});

test("file reads a JSON file at the plugin's root, beside the bundle's folder", async () => {
  const dir = tempDir("sdk-file-");
  writeFileSync(join(dir, "rules.json"), '{"max": 3}');
  const saved = process.argv[1];
  process.argv[1] = join(dir, "dist", "plugin.mjs");
  try {
    const p = new Plugin({ runtime: "node" });
    assert.deepEqual(p.file("rules.json"), { max: 3 });
    assert.equal(p.fileText("rules.json"), '{"max": 3}');
    assert.throws(() => p.file("none.json"), /none\.json: no such file at the plugin's root/);
    for (const bad of ["data/x.json", "escouade-plugin.json", "Escouade-Plugin.JSON", ".hidden.json", "notes.txt", "..\\x.json"]) {
      assert.throws(() => p.fileText(bad), /only a JSON file at the plugin's root/, bad);
    }
    assert.throws(() => p.file("escouade-plugin.json"), /only a JSON file at the plugin's root/);
    // Any other file goes to files/read, which needs the host.
    for (const other of ["data/x.json", "notes.txt"]) {
      await assert.rejects(p.file(other), /files\/read: not connected to the host/, other);
    }
  } finally {
    process.argv[1] = saved;
  }
});

test("in the run.js engine, file resolves against globalThis._importMeta_.url", () => {
  const dir = tempDir("sdk-meta-");
  writeFileSync(join(dir, "channels.json"), "[1,2]");
  globalThis._importMeta_ = { url: `file://${dir}/dist/plugin.mjs` };
  try {
    const p = new Plugin();
    assert.equal(p.runtime, "wasm");
    assert.deepEqual(p.file("channels.json"), [1, 2]);
  } finally {
    delete globalThis._importMeta_;
  }
});
