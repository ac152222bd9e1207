// The hand-js example plugin: protocol 1 by hand, without the SDK. This file
// is the source: Escouade's run.js engine runs it as it is, and so does node
// (node dist/plugin.mjs). It imports node:readline and node:fs only, exports
// nothing, and writes on stdout with process.stdout.write alone, as the
// engine requires. Traces go to stderr, which the host journals.

import { createInterface } from "node:readline";
import { readFileSync } from "node:fs";

// rules.json sits at the plugin's root. In the run.js engine it is resolved
// against globalThis._importMeta_.url (the bundle, dist/plugin.mjs); a
// process runs in the plugin's folder, where the bare name finds it.
const meta = globalThis._importMeta_;
const rulesPath = meta ? new URL("../rules.json", meta.url) : "rules.json";

/** The methods of the plugin: each takes the params and returns the result or throws a Refusal. */
const methods = {
  "hand/hello": (params) => {
    const name = params && params.name;
    if (typeof name !== "string" || name === "") throw new Refusal(-32602, "Invalid params: name is required");
    return { text: `Hello, ${name}!` };
  },
  "hand/check": (params) => {
    const rules = JSON.parse(readFileSync(rulesPath, "utf8"));
    const text = String((params && params.text) || "");
    const problems = [];
    if (text.length > rules.maxLength) problems.push(`longer than ${rules.maxLength}`);
    for (const word of rules.banned) if (text.toLowerCase().includes(word)) problems.push(`says "${word}"`);
    return { ok: problems.length === 0, problems };
  },
};

class Refusal extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

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
function answer(m, id) {
  const isObject = typeof m === "object" && m !== null && !Array.isArray(m);
  if (isObject && !("method" in m) && ("result" in m || "error" in m)) return undefined; // this plugin calls nothing
  if (typeof m !== "object" || m === null || Array.isArray(m) || m.jsonrpc !== "2.0" || typeof m.method !== "string") {
    return error(id ?? "null", -32600, "Invalid Request");
  }
  if (id === undefined) return undefined; // a notification (event/…): nothing to answer
  try {
    if (m.method === "initialize") return result(id, { protocolVersion: 1, capabilities: { batch: true } });
    if (m.method === "shutdown") return result(id, null);
    const fn = methods[m.method];
    if (!fn) return error(id, -32601, "Method not found");
    return result(id, fn(m.params));
  } catch (e) {
    if (!(e instanceof Refusal)) process.stderr.write(`hand-js: ${m.method} failed: ${e.stack}\n`);
    return error(id, e instanceof Refusal ? e.code : -32603, e.message);
  }
}

let stopping = false;

function onLine(line) {
  if (line.trim() === "" || stopping) return;
  let value;
  try {
    value = JSON.parse(line);
  } catch {
    process.stderr.write(`hand-js: not JSON: ${line.slice(0, 200)}\n`);
    return send(error("null", -32700, "Parse error"));
  }
  const ids = rawIds(line);
  const idOf = (m) => (typeof m === "object" && m !== null && !Array.isArray(m) ? ids.shift() : undefined);
  const messages = Array.isArray(value) ? value : [value];
  if (Array.isArray(value) && value.length === 0) return send(error("null", -32600, "Invalid Request"));
  const answers = messages.map((m) => answer(m, idOf(m))).filter((a) => a !== undefined);
  if (answers.length > 0) send(Array.isArray(value) ? `[${answers.join(",")}]` : answers[0]);
  if (messages.some((m) => m && m.method === "shutdown")) stop();
}

function stop() {
  stopping = true;
  rl.close();
  // Exit once what was written is out.
  process.stdout.write("", () => process.exit(0));
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
rl.on("line", onLine);
rl.on("close", () => {
  if (!stopping) stop();
});
