// A hand-written plugin, without the SDK, that handles a refused request
// as docs/writing-a-plugin.md asks: count/get reads its setting and its
// data file, logs, sleeps 50 ms, asks the host to fetch https://example.com/
// (not in its permissions.network: refused -32003 in a bundle, -32601 in a
// process, which has no net/fetch) and answers a result either way. It runs
// as a run.js bundle and, unchanged, as a node process.

import { createInterface } from "node:readline";

const pending = new Map(); // id of a host call -> resolve
let nextCall = 0;

/** Calls the host; resolves to {result} or {error}. */
function ask(method, params) {
  const id = `"c${++nextCall}"`;
  send(`{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}`);
  return new Promise((resolve) => pending.set(id, resolve));
}

const timers = new Map(); // timer id -> resolve

/** Sleeps ms: on the host's timer/* in a bundle, on setTimeout in node. */
async function sleep(ms) {
  if (typeof setTimeout === "function") return new Promise((resolve) => setTimeout(resolve, ms));
  const set = await ask("timer/set", { ms });
  return new Promise((resolve) => timers.set(set.result.timer, resolve));
}

const methods = {
  "count/get": async () => {
    const settings = await ask("settings/get", {});
    const data = await ask("files/read", { path: "data/words.txt" });
    send(`{"jsonrpc":"2.0","method":"log","params":{"level":"info","message":"counting"}}`);
    await sleep(50);
    const fetched = await ask("net/fetch", { url: "https://example.com/" });
    const words = typeof data.result === "string" ? data.result.split("\n").filter((w) => w !== "").length : 0;
    return {
      words,
      step: settings.result ? settings.result.step : undefined,
      fetched: fetched.error ? `refused ${fetched.error.code}` : "fetched",
    };
  },
};

/**
 * The exact text of the "id" of each message on a line that JSON.parse
 * accepted: one entry per object message, in order (a single message, or
 * each object member of a batch), undefined where it has none. JSON.parse
 * would round 9007199254740993 to 9007199254740992; the answer must carry
 * the id byte for byte.
 */
function rawIds(line) {
  const ids = [];
  const top = line.trimStart()[0] === "[" ? 2 : 1; // how deep a message's members are
  const open = []; // the brackets around the current character
  let wantKey = false;
  let key = "";
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    const inMessage = open.length === top && open[top - 1] === "{";
    if (c === '"') {
      let j = i + 1;
      while (line[j] !== '"') j += line[j] === "\\" ? 2 : 1;
      const text = line.slice(i, j + 1);
      if (inMessage && wantKey) {
        key = JSON.parse(text);
        wantKey = false;
      } else if (inMessage && key === "id") {
        ids[ids.length - 1] = text;
        if (top === 1) return ids; // a single message: the rest is its params
        key = "";
      }
      i = j;
    } else if (c === "{" || c === "[") {
      open.push(c);
      if (open.length === top && c === "{") {
        ids.push(undefined);
        wantKey = true;
        key = "";
      }
    } else if (c === "}" || c === "]") {
      open.pop();
    } else if (c === ",") {
      if (inMessage) wantKey = true;
    } else if (inMessage && key === "id" && c !== ":" && c > " ") {
      let j = i;
      while (j < line.length && !",}] \t\r\n".includes(line[j])) j++;
      ids[ids.length - 1] = line.slice(i, j);
      if (top === 1) return ids;
      key = "";
      i = j - 1;
    }
  }
  return ids;
}

const send = (text) => process.stdout.write(text + "\n");
const result = (id, value) => `{"jsonrpc":"2.0","id":${id},"result":${JSON.stringify(value ?? null)}}`;
const error = (id, code, message) => `{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify({ code, message })}}`;

/** The answer to one message (id is its raw text), or undefined for a notification or an answer. */
async function answer(m, id) {
  const isObject = typeof m === "object" && m !== null && !Array.isArray(m);
  if (isObject && !("method" in m) && ("result" in m || "error" in m)) {
    const resolve = pending.get(id);
    pending.delete(id);
    if (resolve) resolve(m);
    return undefined;
  }
  if (!isObject || m.jsonrpc !== "2.0" || typeof m.method !== "string") return error(id ?? "null", -32600, "Invalid Request");
  if (id === undefined) {
    if (m.method === "timer/fired" && timers.has(m.params.timer)) timers.get(m.params.timer)();
    return undefined;
  }
  if (m.method === "initialize") return result(id, { protocolVersion: 1, capabilities: { batch: true } });
  if (m.method === "shutdown") return result(id, null);
  const fn = methods[m.method];
  if (!fn) return error(id, -32601, "Method not found");
  try {
    return result(id, await fn(m.params));
  } catch (e) {
    return error(id, -32603, String(e && e.message));
  }
}

let stopping = false;

async function onLine(line) {
  if (line.trim() === "" || stopping) return;
  let value;
  try {
    value = JSON.parse(line);
  } catch {
    return send(error("null", -32700, "Parse error"));
  }
  const ids = rawIds(line);
  const idOf = (m) => (typeof m === "object" && m !== null && !Array.isArray(m) ? ids.shift() : undefined);
  const messages = Array.isArray(value) ? value : [value];
  if (Array.isArray(value) && value.length === 0) return send(error("null", -32600, "Invalid Request"));
  const withIds = messages.map((m) => [m, idOf(m)]);
  const answers = (await Promise.all(withIds.map(([m, id]) => answer(m, id)))).filter((a) => a !== undefined);
  if (answers.length > 0) send(Array.isArray(value) ? `[${answers.join(",")}]` : answers[0]);
  if (messages.some((m) => m && m.method === "shutdown")) stop();
}

function stop() {
  stopping = true;
  rl.close();
  process.stdout.write("", () => process.exit(0));
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
rl.on("line", onLine);
rl.on("close", () => {
  if (!stopping) stop();
});
