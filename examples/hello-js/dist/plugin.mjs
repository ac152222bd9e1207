/*! @escouade-dev/plugin v0.3.0 */

// ../../sdk/js/dist/plugin.js
import { readFileSync } from "node:fs";

// ../../sdk/js/dist/errors.js
var codes = {
  /** The line is not JSON. */
  ParseError: -32700,
  /** The JSON is not a JSON-RPC message. */
  InvalidRequest: -32600,
  /** Nobody serves that method. */
  MethodNotFound: -32601,
  /** Params that do not have the method's shape. */
  InvalidParams: -32602,
  /** A handler failed. */
  InternalError: -32603,
  /** A secret that is not the plugin's. */
  NotYours: -32001,
  /** The keychain is out of reach. */
  Keychain: -32002,
  /** What the plugin may not reach: a host, a file, a program. */
  Forbidden: -32003,
  /** A request that failed on the way: a timeout, too large, unreachable, not text. */
  Failed: -32004,
  /** A missing file. */
  Missing: -32005
};
var messages = {
  [codes.ParseError]: "Parse error",
  [codes.InvalidRequest]: "Invalid Request",
  [codes.MethodNotFound]: "Method not found",
  [codes.InvalidParams]: "Invalid params",
  [codes.InternalError]: "Internal error",
  [codes.NotYours]: "The secret is not the plugin's",
  [codes.Keychain]: "The keychain is out of reach",
  [codes.Forbidden]: "The plugin may not reach it",
  [codes.Failed]: "The request failed on the way",
  [codes.Missing]: "The file is missing"
};
var RpcError = class _RpcError extends Error {
  code;
  data;
  /** An error with code; the message defaults to the code's usual one. */
  constructor(code, message, data) {
    super(message ?? messages[code] ?? `JSON-RPC error ${code}`);
    this.name = "RpcError";
    this.code = code;
    this.data = data;
  }
  /** The reason of data {"reason": …}, as the host gives it, or "". */
  get reason() {
    const d = this.data;
    return d && typeof d === "object" && typeof d.reason === "string" ? d.reason : "";
  }
  /** -32602 "Invalid params: <detail>", the form the Go kit answers. */
  static invalidParams(detail) {
    return new _RpcError(codes.InvalidParams, `${messages[codes.InvalidParams]}: ${detail}`);
  }
  /** An error of code with the usual message and data {"reason": reason}. */
  static withReason(code, reason) {
    return new _RpcError(code, void 0, { reason });
  }
  /** The wire form of the error. */
  toWire() {
    const e = { code: this.code, message: this.message };
    if (this.data !== void 0)
      e.data = this.data;
    return e;
  }
  static fromWire(e) {
    return new _RpcError(e.code, e.message, e.data);
  }
};
var CallTimeoutError = class extends Error {
  method;
  ms;
  constructor(method, ms) {
    super(`${method}: no answer within ${spellMs(ms)}`);
    this.name = "CallTimeoutError";
    this.method = method;
    this.ms = ms;
  }
};
var NotConnectedError = class extends Error {
  constructor(method) {
    super(`${method}: not connected to the host; call it from a handler while run() serves`);
    this.name = "NotConnectedError";
  }
};
function spellMs(ms) {
  if (ms >= 6e4 && ms % 6e4 === 0)
    return `${ms / 6e4} min`;
  if (ms >= 1e3 && ms % 1e3 === 0)
    return `${ms / 1e3} s`;
  return `${ms} ms`;
}
function toWireError(e) {
  if (e instanceof RpcError)
    return e.toWire();
  const message = e instanceof Error ? e.message : String(e);
  return { code: codes.InternalError, message: message || messages[codes.InternalError] };
}
function describeError(e) {
  if (!(e instanceof Error))
    return String(e);
  const head = String(e);
  const stack = typeof e.stack === "string" ? e.stack.replace(/\n$/, "") : "";
  if (stack === "")
    return head;
  return stack.startsWith(head) ? stack : `${head}
${stack}`;
}

// ../../sdk/js/dist/fetch.js
var DEFAULT_FETCH_LIMITS = { timeoutMs: 1e4, maxBytes: 1 << 20 };
function fetchParams(input, init) {
  const base = typeof input === "string" ? { url: input } : { ...input };
  if (init)
    Object.assign(base, init);
  if (typeof base.url !== "string" || base.url === "")
    throw new TypeError("fetch: a URL is required");
  return base;
}
function lowerHeaders(h) {
  const out = {};
  for (const [name, value] of Object.entries(h ?? {})) {
    const lower = name.toLowerCase();
    out[lower] = lower in out ? `${out[lower]}, ${value}` : value;
  }
  return out;
}
function joinHeaders(h) {
  const out = {};
  h.forEach((value, name) => {
    out[name] = name in out ? `${out[name]}, ${value}` : value;
  });
  return out;
}
function failed(reason) {
  return RpcError.withReason(codes.Failed, reason);
}
function refuse(p2) {
  const method = (p2.method ?? "GET").toUpperCase();
  if (method === "CONNECT" || method === "TRACE") {
    throw RpcError.withReason(codes.Forbidden, `the method ${method} is refused`);
  }
}
var DROPPED = /* @__PURE__ */ new Set(["host", "connection", "transfer-encoding"]);
function sentHeaders(h) {
  const out = {};
  for (const [name, value] of Object.entries(h ?? {})) {
    const lower = name.toLowerCase();
    if (DROPPED.has(lower) || lower.startsWith("proxy-"))
      continue;
    out[name] = value;
  }
  return out;
}
async function localFetch(p2, limits = DEFAULT_FETCH_LIMITS) {
  refuse(p2);
  const g = globalThis;
  if (typeof g.fetch !== "function")
    throw failed("this runtime has no fetch");
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
  try {
    const init = {
      method: p2.method ?? "GET",
      headers: sentHeaders(p2.headers),
      redirect: "manual",
      signal: controller.signal
    };
    if (p2.body !== void 0)
      init.body = p2.bodyEncoding === "base64" ? g.Buffer.from(p2.body, "base64") : p2.body;
    const res = await g.fetch(p2.url, init);
    const bytes = await readCapped(res, limits.maxBytes);
    return { status: res.status, headers: joinHeaders(res.headers), ...encodeBody(bytes) };
  } catch (e) {
    if (e instanceof RpcError)
      throw e;
    if (controller.signal.aborted)
      throw failed(`no answer within ${limits.timeoutMs} ms`);
    const cause = e.cause?.message;
    throw failed(cause ?? (e instanceof Error ? e.message : String(e)));
  } finally {
    clearTimeout(timer);
  }
}
async function readCapped(res, max) {
  if (!res.body)
    return new Uint8Array(0);
  const chunks = [];
  let size = 0;
  const reader = res.body.getReader();
  for (; ; ) {
    const { done, value } = await reader.read();
    if (done)
      break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw failed(`the answer is over the limit of ${max} bytes`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
function encodeBody(bytes) {
  try {
    return { body: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes), bodyEncoding: "utf8" };
  } catch {
    return { body: toBase64(bytes), bodyEncoding: "base64" };
  }
}
function toBase64(bytes) {
  const out = [];
  for (let i = 0; i < bytes.length; i += 3) {
    const n = bytes[i] << 16 | (bytes[i + 1] ?? 0) << 8 | (bytes[i + 2] ?? 0);
    const left = bytes.length - i;
    out.push(B64[n >> 18 & 63] + B64[n >> 12 & 63] + (left > 1 ? B64[n >> 6 & 63] : "=") + (left > 2 ? B64[n & 63] : "="));
  }
  return out.join("");
}
function overFetchBound(e) {
  return e instanceof RpcError && e.code === codes.Failed && (e.reason ?? "").includes("read it through net/stream");
}
var StreamedBody = class {
  chunks = [];
  size = 0;
  done;
  settle;
  constructor() {
    this.done = new Promise((resolve, reject) => this.settle = { resolve, reject });
  }
  chunk(p2) {
    const text = typeof p2.data === "string" ? p2.data : "";
    const bytes = p2.bodyEncoding === "base64" ? fromBase64(text) : bodyBytes({ body: text, bodyEncoding: "utf8" });
    this.chunks.push(bytes);
    this.size += bytes.byteLength;
  }
  end(p2) {
    if (typeof p2.error === "string" && p2.error !== "") {
      this.settle.reject(failed(p2.error));
      return;
    }
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.byteLength;
    }
    this.settle.resolve(out);
  }
};
var B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
function fromBase64(text) {
  const clean = text.replace(/[^A-Za-z0-9+/]/g, "");
  const out = new Uint8Array(Math.floor(clean.length * 3 / 4));
  let bits = 0;
  let acc = 0;
  let n = 0;
  for (let i = 0; i < clean.length; i++) {
    acc = acc << 6 | B64.indexOf(clean[i]);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = acc >> bits & 255;
    }
  }
  return out.subarray(0, n);
}
function bodyBytes(r) {
  if (r.bodyEncoding === "base64")
    return fromBase64(r.body);
  const out = [];
  const s = r.body;
  for (let i = 0; i < s.length; i++) {
    let c = s.codePointAt(i);
    if (c > 65535)
      i++;
    if (c >= 55296 && c <= 57343)
      c = 65533;
    if (c < 128)
      out.push(c);
    else if (c < 2048)
      out.push(192 | c >> 6, 128 | c & 63);
    else if (c < 65536)
      out.push(224 | c >> 12, 128 | c >> 6 & 63, 128 | c & 63);
    else
      out.push(240 | c >> 18, 128 | c >> 12 & 63, 128 | c >> 6 & 63, 128 | c & 63);
  }
  return Uint8Array.from(out);
}

// ../../sdk/js/dist/runtime.js
import { createInterface } from "node:readline";
function proc() {
  return globalThis.process;
}
function detectRuntime() {
  const meta = globalThis._importMeta_;
  if (typeof meta === "object" && meta !== null)
    return "wasm";
  return proc()?.versions?.node ? "node" : "wasm";
}
function readEnv() {
  const env = proc()?.env ?? {};
  const out = {};
  if (env.ESCOUADE_PLUGIN_ID)
    out.pluginId = env.ESCOUADE_PLUGIN_ID;
  if (env.ESCOUADE_PLUGIN_API)
    out.api = env.ESCOUADE_PLUGIN_API;
  if (env.ESCOUADE_VERSION)
    out.appVersion = env.ESCOUADE_VERSION;
  if (env.ESCOUADE_LANG)
    out.lang = env.ESCOUADE_LANG;
  return out;
}
function stdio() {
  const p2 = proc();
  let pending = 0;
  let exitCode;
  const finish = () => {
    if (exitCode !== void 0 && pending === 0)
      p2?.exit?.(exitCode);
  };
  const writesAtOnce = !p2?.versions?.node;
  return {
    write(line) {
      const out = p2?.stdout;
      if (!out)
        throw new Error("no process.stdout to write the protocol on");
      if (writesAtOnce) {
        out.write(line + "\n");
        return;
      }
      pending++;
      let out1 = false;
      const written = () => {
        if (out1)
          return;
        out1 = true;
        pending--;
        finish();
      };
      if (out.write(line + "\n", written) === void 0)
        written();
    },
    trace(text) {
      if (p2?.stderr)
        p2.stderr.write(text + "\n");
      else
        globalThis.console?.error(text);
    },
    exit(code) {
      exitCode = code;
      finish();
    }
  };
}
function readStdin(onLine, onEnd) {
  const rl = createInterface({ input: proc()?.stdin, crlfDelay: Infinity, terminal: false });
  rl.on("line", onLine);
  rl.on("close", onEnd);
  return () => rl.close();
}
function rootFilePath(name) {
  const root = true ? "../" : "../";
  const meta = globalThis._importMeta_;
  const URLCtor = globalThis.URL;
  if (meta && typeof meta.url === "string" && URLCtor)
    return new URLCtor(root + name, meta.url);
  const script = detectRuntime() === "node" ? proc()?.argv?.[1] : void 0;
  if (typeof script === "string" && script !== "")
    return besideScript(script, root, name);
  return name;
}
function besideScript(script, root, name) {
  const parts = script.split(/[\\/]/);
  parts.pop();
  let ups = root.split("/").filter((s) => s === "..").length;
  while (ups > 0 && parts.length > 0 && parts[parts.length - 1] !== ".." && parts[parts.length - 1] !== "") {
    parts.pop();
    ups--;
  }
  const prefix = parts.length > 0 ? parts.join("/") + "/" : "";
  return prefix + "../".repeat(ups) + name;
}

// ../../sdk/js/dist/timers.js
var MAX_TIMER_MS = 2 ** 31 - 1;
function timerMs(ms) {
  if (typeof ms !== "number" || Number.isNaN(ms))
    return 0;
  return Math.min(MAX_TIMER_MS, Math.max(0, Math.floor(ms)));
}
var LocalTimers = class {
  trace;
  live = /* @__PURE__ */ new Set();
  constructor(trace) {
    this.trace = trace;
  }
  set(fn, ms) {
    const t = { ms: timerMs(ms) };
    t.handle = setTimeout(() => {
      this.live.delete(t);
      runTimer(fn, this.trace);
    }, t.ms);
    this.live.add(t);
    return t;
  }
  clear(t) {
    const nt = t;
    if (!this.live.delete(nt))
      return;
    clearTimeout(nt.handle);
  }
  close() {
    for (const t of this.live)
      clearTimeout(t.handle);
    this.live.clear();
  }
  fired() {
  }
};
var HostTimers = class {
  host;
  trace;
  byHostId = /* @__PURE__ */ new Map();
  early = /* @__PURE__ */ new Set();
  local;
  closed = false;
  /** timer/set calls not answered yet: only then may a timer/fired come early. */
  setting = 0;
  constructor(host, trace) {
    this.host = host;
    this.trace = trace;
  }
  set(fn, ms) {
    if (this.local)
      return this.local.set(fn, ms);
    const t = { ms: timerMs(ms), fn, cleared: false };
    this.setting++;
    this.host.call("timer/set", { ms: t.ms }, { timeoutMs: 0 }).then((r) => {
      this.setting--;
      this.armed(t, r);
    }, (e) => {
      this.setting--;
      this.refused(t, e);
    });
    return t;
  }
  armed(t, r) {
    const id = r?.timer;
    if (typeof id !== "number") {
      this.trace(`sdk: timer/set answered ${JSON.stringify(r)}, not {"timer": <number>}`);
      return;
    }
    if (t.cleared || this.closed) {
      this.clearAtHost(id);
      return;
    }
    t.hostId = id;
    if (this.early.delete(id)) {
      runTimer(t.fn, this.trace);
      return;
    }
    this.byHostId.set(id, t);
  }
  refused(t, e) {
    if (e instanceof RpcError && e.code === codes.MethodNotFound && typeof setTimeout === "function") {
      this.local ??= new LocalTimers(this.trace);
      if (!t.cleared && !this.closed) {
        const lt = this.local.set(t.fn, t.ms);
        t.fn = () => {
        };
        t.local = lt;
      }
      return;
    }
    this.trace(`sdk: timer/set failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  clear(t) {
    const lt = t.local;
    if (lt && this.local) {
      this.local.clear(lt);
      return;
    }
    if (this.local && !("cleared" in t)) {
      this.local.clear(t);
      return;
    }
    const ht = t;
    if (ht.cleared)
      return;
    ht.cleared = true;
    if (ht.hostId !== void 0 && this.byHostId.delete(ht.hostId))
      this.clearAtHost(ht.hostId);
  }
  clearAtHost(id) {
    this.host.call("timer/clear", { timer: id }, { timeoutMs: 0 }).catch(() => {
    });
  }
  close() {
    this.closed = true;
    this.byHostId.clear();
    this.early.clear();
    this.local?.close();
  }
  fired(params) {
    const id = params?.timer;
    if (typeof id !== "number" || this.closed)
      return;
    const t = this.byHostId.get(id);
    if (!t) {
      if (this.setting > 0)
        this.early.add(id);
      return;
    }
    this.byHostId.delete(id);
    if (!t.cleared)
      runTimer(t.fn, this.trace);
  }
};
function runTimer(fn, trace) {
  try {
    fn();
  } catch (e) {
    trace(`sdk: a timer's function threw: ${describeError(e)}`);
  }
}

// ../../sdk/js/dist/wire.js
var MAX_LINE_BYTES = 8 << 20;
var PARSE_ERROR = { code: -32700, message: "Parse error" };
var INVALID_REQUEST = { code: -32600, message: "Invalid Request" };
function isBlank(line) {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13 && c !== 10)
      return false;
  }
  return true;
}
function decode(line) {
  const first = line.charCodeAt(0);
  if (first !== 123 && first !== 91 && isBlank(line))
    return void 0;
  if (line.length * 3 > MAX_LINE_BYTES && overLimit(line))
    return { err: PARSE_ERROR, errId: "null" };
  let value;
  try {
    value = JSON.parse(line);
  } catch {
    return { err: PARSE_ERROR, errId: "null" };
  }
  if (!Array.isArray(value))
    return decodeSingle(line, value);
  if (value.length === 0)
    return { err: INVALID_REQUEST, errId: "null" };
  const scan = new Scanner(line);
  const members = value.some((v) => isObject(v) && hasId(v)) ? scan.topArray() : value.map((v) => isObject(v) ? {} : void 0);
  return value.map((v, i) => {
    const fields = members[i];
    return fields === void 0 || !isObject(v) ? invalid() : decodeItem(v, fields.id);
  });
}
var HOST_HEAD = '{"jsonrpc":"2.0","id":';
function decodeSingle(line, parsed) {
  if (typeof parsed !== "object" || parsed === null)
    return invalid();
  const value = parsed;
  const id = value.id;
  if (id === void 0)
    return decodeItem(value, void 0);
  return decodeItem(value, hostIdText(line, id) ?? new Scanner(line).topObject().id);
}
function hostIdText(line, id) {
  if (!line.startsWith(HOST_HEAD))
    return void 0;
  const text = typeof id === "number" ? String(id) : typeof id === "string" ? JSON.stringify(id) : id === null ? "null" : void 0;
  if (text === void 0 || !line.startsWith(text, HOST_HEAD.length))
    return void 0;
  const next = line.charCodeAt(HOST_HEAD.length + text.length);
  return next === 44 || next === 125 ? text : void 0;
}
function overLimit(line) {
  if (line.length > MAX_LINE_BYTES)
    return true;
  if (line.length * 3 <= MAX_LINE_BYTES)
    return false;
  return utf8Length(line) > MAX_LINE_BYTES;
}
function utf8Length(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 128)
      n += 1;
    else if (c < 2048)
      n += 2;
    else if (c >= 55296 && c <= 56319 && i + 1 < s.length && (s.charCodeAt(i + 1) & 64512) === 56320) {
      n += 4;
      i++;
    } else
      n += 3;
  }
  return n;
}
function hasId(v) {
  return Object.prototype.hasOwnProperty.call(v, "id");
}
function isObject(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
function invalid(errId = "null") {
  return { err: INVALID_REQUEST, errId };
}
function decodeItem(value, rawId) {
  if (rawId !== void 0 && rawId !== "null" && typeof value.id !== "number" && typeof value.id !== "string") {
    return invalid();
  }
  const idText = rawId ?? "null";
  if (value.jsonrpc !== "2.0")
    return invalid(idText);
  const method = value.method;
  if (method !== void 0) {
    if (typeof method !== "string" || method === "" || rawId === "null" || value.result !== void 0 || value.error !== void 0) {
      return invalid(idText);
    }
    const params = value.params ?? void 0;
    if (params !== void 0 && typeof params !== "object")
      return invalid(idText);
    return { msg: rawId === void 0 ? { method, params } : { id: rawId, method, params } };
  }
  return decodeResponse(value, rawId);
}
function decodeResponse(value, rawId) {
  const idText = rawId ?? "null";
  const hasResult = value.result !== void 0;
  if (rawId === void 0 || value.params !== void 0 || hasResult === (value.error !== void 0))
    return invalid(idText);
  if (hasResult) {
    if (rawId === "null")
      return invalid(idText);
    return { msg: { id: rawId, hasResult: true, result: value.result } };
  }
  const e = value.error;
  if (!isObject(e) || !Number.isInteger(e.code) || typeof e.message !== "string")
    return invalid(idText);
  const error = { code: e.code, message: e.message };
  if (Object.prototype.hasOwnProperty.call(e, "data"))
    error.data = e.data;
  return { msg: { id: rawId, error } };
}
var STRUCTURAL = /["{}[\]]/g;
var SCALAR_END = /[,}\]\s]/g;
var Scanner = class {
  s;
  pos = 0;
  constructor(s) {
    this.s = s;
  }
  /** The fields of the top-level value, or undefined when it is not an object. */
  topObject() {
    this.ws();
    return this.s[this.pos] === "{" ? this.object(false) : void 0;
  }
  /** The fields of each member of the top-level array (undefined for non-objects). */
  topArray() {
    const out = [];
    this.ws();
    this.pos++;
    for (; ; ) {
      this.ws();
      if (this.s[this.pos] === "]")
        return out;
      if (this.s[this.pos] === "{")
        out.push(this.object(true));
      else {
        out.push(void 0);
        this.skipValue();
      }
      this.ws();
      if (this.s[this.pos] === ",")
        this.pos++;
    }
  }
  /**
   * The fields of the object at pos. With toEnd, pos ends past the object
   * (a batch member, others follow); without, the scan may stop at the id.
   */
  object(toEnd) {
    const f = {};
    this.pos++;
    for (; ; ) {
      this.ws();
      if (this.s[this.pos] === "}") {
        this.pos++;
        return f;
      }
      const start = this.pos;
      this.skipString();
      const rawName = this.s.slice(start, this.pos);
      const name = rawName.includes("\\") ? JSON.parse(rawName) : rawName.slice(1, -1);
      this.ws();
      this.pos++;
      this.ws();
      const valueStart = this.pos;
      this.skipValue();
      if (name === "id") {
        f.id = this.s.slice(valueStart, this.pos);
        if (toEnd)
          this.skipRest(1);
        return f;
      }
      this.ws();
      if (this.s[this.pos] === ",")
        this.pos++;
    }
  }
  ws() {
    const s = this.s;
    while (this.pos < s.length) {
      const c = s.charCodeAt(this.pos);
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13)
        return;
      this.pos++;
    }
  }
  /** Moves past the string starting at pos. */
  skipString() {
    const s = this.s;
    let i = this.pos + 1;
    for (; ; ) {
      const q = s.indexOf('"', i);
      let slashes = 0;
      for (let j = q - 1; s.charCodeAt(j) === 92; j--)
        slashes++;
      if (slashes % 2 === 0) {
        this.pos = q + 1;
        return;
      }
      i = q + 1;
    }
  }
  /** Moves past the value starting at pos. */
  skipValue() {
    const c = this.s[this.pos];
    if (c === '"')
      return this.skipString();
    if (c !== "{" && c !== "[") {
      SCALAR_END.lastIndex = this.pos;
      const m = SCALAR_END.exec(this.s);
      this.pos = m ? m.index : this.s.length;
      return;
    }
    this.pos++;
    this.skipRest(1);
  }
  /** Moves past the end of the container pos is depth levels inside. */
  skipRest(depth) {
    for (; ; ) {
      STRUCTURAL.lastIndex = this.pos;
      const m = STRUCTURAL.exec(this.s);
      this.pos = m.index;
      const ch = m[0];
      if (ch === '"') {
        this.skipString();
        continue;
      }
      this.pos++;
      depth += ch === "{" || ch === "[" ? 1 : -1;
      if (depth === 0)
        return;
    }
  }
};
function toJSON(v) {
  const text = JSON.stringify(v);
  return text === void 0 ? "null" : text;
}
function encodeResult(id, result) {
  return `{"jsonrpc":"2.0","id":${id},"result":${toJSON(result)}}`;
}
function encodeError(id, e) {
  const err = { code: e.code, message: e.message };
  if (e.data !== void 0)
    err.data = e.data;
  return `{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify(err)}}`;
}
function encodeRequest(id, method, params) {
  const p2 = params === void 0 ? "" : `,"params":${toJSON(params)}`;
  return `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)}${p2}}`;
}
function encodeNotification(method, params) {
  const p2 = params === void 0 ? "" : `,"params":${toJSON(params)}`;
  return `{"jsonrpc":"2.0","method":${JSON.stringify(method)}${p2}}`;
}

// ../../sdk/js/dist/version.js
var SDK_VERSION = "0.3.0";
var STAMP = `/*! @escouade-dev/plugin v${SDK_VERSION} */`;

// ../../sdk/js/dist/plugin.js
var PROTOCOL_VERSION = 1;
var DEFAULT_CALL_TIMEOUT_MS = 6e4;
var MAX_LATE = 1024;
var DEFAULT_STOP_GRACE_MS = 1e3;
var EVENT_PREFIX = "event/";
var RESERVED = /* @__PURE__ */ new Set(["initialize", "shutdown"]);
var LEVELS = /* @__PURE__ */ new Set(["debug", "info", "warn", "error"]);
var Plugin = class {
  /** Where the plugin runs. */
  runtime;
  /** What the host put in the environment (a process only). */
  env;
  /** What initialize said, once it came. */
  init;
  methods = /* @__PURE__ */ new Map();
  events = /* @__PURE__ */ new Map();
  notifications = /* @__PURE__ */ new Map();
  attach;
  callTimeoutMs;
  stopGraceMs;
  fetchLimits;
  conn;
  traceOut = (text) => stdio().trace(text);
  constructor(opts = {}) {
    this.runtime = opts.runtime ?? detectRuntime();
    this.env = readEnv();
    this.callTimeoutMs = opts.callTimeoutMs ?? (this.runtime === "node" ? DEFAULT_CALL_TIMEOUT_MS : 0);
    this.stopGraceMs = opts.stopGraceMs ?? DEFAULT_STOP_GRACE_MS;
    this.fetchLimits = { ...DEFAULT_FETCH_LIMITS, ...opts.fetchLimits };
  }
  /**
   * Serves method with fn. It throws on a programming error: a method
   * registered twice, or one the SDK serves (initialize, shutdown,
   * agent/attach: use onAttach, event/…: use on).
   */
  method(name, fn) {
    if (!name || typeof fn !== "function")
      throw new TypeError("method needs a name and a function");
    if (RESERVED.has(name))
      throw new TypeError(`method(${name}): the SDK answers ${name} itself`);
    if (name === "agent/attach")
      throw new TypeError("method(agent/attach): use onAttach");
    if (name.startsWith(EVENT_PREFIX)) {
      throw new TypeError(`method(${name}): use on(${JSON.stringify(name.slice(EVENT_PREFIX.length))})`);
    }
    if (this.methods.has(name))
      throw new TypeError(`method(${name}) registered twice`);
    this.methods.set(name, fn);
    return this;
  }
  /**
   * Serves the notification event/<name>, sent for the fact event:<name> of
   * the activation list. Event handlers run one at a time, in the order the
   * host sent the events.
   */
  on(name, fn) {
    if (!name || name.startsWith(EVENT_PREFIX) || typeof fn !== "function") {
      throw new TypeError(`on(${JSON.stringify(name)}) needs a name without "event/" and a function`);
    }
    if (this.events.has(name))
      throw new TypeError(`on(${name}) registered twice`);
    this.events.set(name, fn);
    return this;
  }
  /**
   * Serves another notification of the host (ws/message, net/chunk…), in
   * order with the events. timer/fired is the SDK's.
   */
  onNotification(method, fn) {
    if (!method || method.startsWith(EVENT_PREFIX) || method === "timer/fired" || typeof fn !== "function") {
      throw new TypeError(`onNotification(${JSON.stringify(method)}): use on() for events; timer/fired is the SDK's`);
    }
    this.notifications.set(method, fn);
    return this;
  }
  /** Serves agent/attach; without it the SDK answers -32601. */
  onAttach(fn) {
    if (typeof fn !== "function" || this.attach)
      throw new TypeError("onAttach needs a function and takes one");
    this.attach = fn;
    return this;
  }
  /**
   * Serves the host on stdin and stdout until shutdown or the end of stdin,
   * then ends the program. The promise resolves when it stops (before the
   * exit).
   */
  run() {
    const io = stdio();
    let stopReading = () => {
    };
    const conn = this.connect(io, () => stopReading());
    stopReading = readStdin((line) => conn.receive(line), () => conn.stop());
    return conn.stopped.then(() => io.exit(0));
  }
  /**
   * Serves the host through io instead of the standard streams: feed each
   * line the host sends to receive(), and end() when its input ends. run()
   * is this over stdin and stdout; tests use it directly.
   */
  serve(io) {
    const conn = this.connect(io, () => {
    });
    return { receive: (l) => conn.receive(l), end: () => conn.stop(), stopped: conn.stopped };
  }
  connect(io, stopReading) {
    if (this.conn)
      throw new Error("the plugin is already serving");
    this.traceOut = (t) => io.trace(t);
    const conn = new Connection(this, io, stopReading, () => {
      if (this.conn === conn)
        this.conn = void 0;
    });
    this.conn = conn;
    return conn;
  }
  call(method, params, opts = {}) {
    const conn = this.conn;
    if (!conn)
      return Promise.reject(new NotConnectedError(method));
    return conn.call(method, params, opts.timeoutMs ?? this.callTimeoutMs);
  }
  /** Sends a notification to the host. */
  notify(method, params) {
    const conn = this.conn;
    if (!conn)
      throw new NotConnectedError(method);
    conn.send(encodeNotification(method, params));
  }
  /**
   * Sends calls as one batch (one line); resolves to their outcomes in the
   * order of calls once every request is answered.
   */
  batch(calls, opts = {}) {
    const conn = this.conn;
    if (!conn)
      return Promise.reject(new NotConnectedError("batch"));
    return conn.batch(calls, opts.timeoutMs ?? this.callTimeoutMs);
  }
  /**
   * The secret kept under key (secrets/get), or null when none is. A key
   * the manifest does not grant rejects with -32001 (codes.NotYours), a
   * keychain out of reach with -32002. Never print the value.
   */
  async secret(key) {
    const v = await this.call("secrets/get", { key });
    if (v !== null && typeof v !== "string")
      throw badAnswer("secrets/get", "a string or null", v);
    return v;
  }
  /**
   * The values the user chose (settings/get), by key; those left at their
   * default are absent: apply the manifest's defaults. Never a secret one.
   * With a project id, that project's .escouade.yml values come first.
   */
  async settings(project) {
    const v = await this.call("settings/get", project ? { project } : {});
    if (typeof v !== "object" || v === null || Array.isArray(v))
      throw badAnswer("settings/get", "an object", v);
    return v;
  }
  /** A UTF-8 file of the plugin's folder (files/read, 256 KB at most), path relative with "/". */
  async readFile(path) {
    const v = await this.call("files/read", { path });
    if (typeof v !== "string")
      throw badAnswer("files/read", "a string", v);
    return v;
  }
  file(path) {
    if (isRootJSON(path))
      return JSON.parse(this.fileText(path));
    return this.readFile(path);
  }
  /** The text of a JSON file at the plugin's root; see file. */
  fileText(name) {
    checkRootFile(name);
    try {
      return readFileSync(rootFilePath(name), "utf8");
    } catch (e) {
      const why = e.code === "ENOENT" ? "no such file at the plugin's root" : String(e);
      throw new Error(`${name}: ${why}`);
    }
  }
  /**
   * Writes message to the journal at level, one journal line per line. An
   * unknown level is sent as info; while not serving, the line goes to stderr.
   */
  log(level, message) {
    if (!LEVELS.has(level)) {
      this.trace(`sdk: log level ${JSON.stringify(level)} is not debug, info, warn or error: sent as info`);
      level = "info";
    }
    const conn = this.conn;
    if (!conn) {
      this.trace(`log.${level} ${message}`);
      return;
    }
    conn.send(encodeNotification("log", { level, message }));
  }
  /**
   * An HTTP request, answered in net/fetch's shape (a 3xx is not followed;
   * the body is base64 when not UTF-8; header names in lower case). In WASM it goes through the host
   * (net/fetch, under permissions.network); under node it is made by node's
   * fetch, with the same default limits.
   */
  async fetch(input, init) {
    const params = fetchParams(input, init);
    if (this.runtime === "node")
      return localFetch(params, this.fetchLimits);
    try {
      const r = await this.call("net/fetch", params);
      return { ...r, headers: lowerHeaders(r.headers) };
    } catch (e) {
      if (overFetchBound(e))
        return this.streamed(params);
      const hasFetch = typeof globalThis.fetch === "function";
      if (e instanceof RpcError && e.code === codes.MethodNotFound && hasFetch)
        return localFetch(params, this.fetchLimits);
      throw e;
    }
  }
  /**
   * A fetch whose body is past what a net/fetch answer carries (4 MiB),
   * made again through net/stream and gathered, in net/fetch's shape.
   */
  async streamed(params) {
    const conn = this.conn;
    if (!conn)
      throw new NotConnectedError("net/stream");
    const head = await this.call("net/stream", params);
    const bytes = await conn.streamBody(head.stream);
    return { status: head.status, headers: lowerHeaders(head.headers), ...encodeBody(bytes) };
  }
  /** Calls fn once after ms milliseconds (timer/set in WASM, setTimeout under node). */
  setTimer(fn, ms) {
    const conn = this.conn;
    if (!conn)
      throw new NotConnectedError("timer/set");
    return conn.timers.set(fn, ms);
  }
  /** Clears a timer of setTimer that has not fired. */
  clearTimer(t) {
    this.conn?.timers.clear(t);
  }
  /** Resolves after ms milliseconds. */
  sleep(ms) {
    return new Promise((resolve) => this.setTimer(resolve, ms));
  }
  /** Writes a trace line on stderr, which the host journals. */
  trace(text) {
    this.traceOut(text);
  }
  // What the connection asks of the plugin.
  /** @internal */
  lookup(method) {
    return this.methods.get(method);
  }
  /** @internal */
  lookupEvent(name) {
    return this.events.get(name);
  }
  /** @internal */
  lookupNotification(method) {
    return this.notifications.get(method);
  }
  /** @internal */
  attachHandler() {
    return this.attach;
  }
  /** @internal */
  capabilities() {
    return { batch: true, attach: this.attach !== void 0 };
  }
  /** @internal */
  get grace() {
    return this.stopGraceMs;
  }
};
function isRootJSON(name) {
  return typeof name === "string" && name.endsWith(".json") && !name.includes("/") && !name.includes("\\") && !name.startsWith(".");
}
function checkRootFile(name) {
  const ok = typeof name === "string" && name.endsWith(".json") && !name.includes("/") && !name.includes("\\") && !name.startsWith(".") && name.toLowerCase() !== "escouade-plugin.json";
  if (!ok) {
    throw new TypeError(`file(${JSON.stringify(name)}): only a JSON file at the plugin's root, other than the manifest; read other files with await p.readFile(path)`);
  }
}
function badAnswer(method, want, got) {
  let text = JSON.stringify(got) ?? String(got);
  if (text.length > 80)
    text = text.slice(0, 80) + "…";
  return new Error(`${method} answered ${text}, not ${want}`);
}
var Connection = class {
  p;
  io;
  stopReading;
  onStopped;
  timers;
  stopped;
  closing = false;
  nextId = 1;
  pending = /* @__PURE__ */ new Map();
  late = /* @__PURE__ */ new Map();
  /** Answers under way: stop lets them go out first. */
  inflight = 0;
  /** Called once no answer is under way, while stopping. */
  drained;
  notes = Promise.resolve();
  /** The bodies of p.fetch's net/stream, by stream. */
  bodies = /* @__PURE__ */ new Map();
  controller;
  /** The controller's signal, read once: every call's context carries it. */
  signal;
  resolveStopped;
  constructor(p2, io, stopReading, onStopped) {
    this.p = p2;
    this.io = io;
    this.stopReading = stopReading;
    this.onStopped = onStopped;
    const trace = (t) => io.trace(t);
    const host = { call: (m, params, o) => this.call(m, params, o?.timeoutMs ?? 0) };
    this.timers = p2.runtime === "wasm" ? new HostTimers(host, trace) : new LocalTimers(trace);
    const AC = globalThis.AbortController;
    this.controller = AC ? new AC() : void 0;
    this.signal = this.controller?.signal;
    this.stopped = new Promise((r) => this.resolveStopped = r);
  }
  send(line) {
    this.io.write(line);
  }
  // Reading.
  receive(line) {
    const d = decode(line);
    if (d === void 0)
      return;
    let answer;
    try {
      answer = Array.isArray(d) ? this.batchAnswer(d) : this.item(d);
    } catch (e) {
      this.traceError(e);
      return;
    }
    if (typeof answer === "string")
      this.sendOrTrace(answer);
    else if (answer !== void 0)
      this.later(answer);
  }
  /** One array for a batch, once every member is answered. */
  batchAnswer(items) {
    return Promise.all(items.map((it) => this.item(it))).then((list) => {
      const out = list.filter((a) => a !== void 0);
      return out.length > 0 ? this.fit(`[${out.join(",")}]`, "null") : void 0;
    });
  }
  /** Sends the answer once it comes, counted under way until then. */
  later(answer) {
    this.inflight++;
    answer.then(this.sendLater, this.failLater);
  }
  sendLater = (text) => {
    if (text !== void 0)
      this.sendOrTrace(text);
    this.settle();
  };
  failLater = (e) => {
    this.traceError(e);
    this.settle();
  };
  settle() {
    if (--this.inflight === 0)
      this.drained?.();
  }
  sendOrTrace(text) {
    try {
      this.io.write(text);
    } catch (e) {
      this.traceError(e);
    }
  }
  traceError(e) {
    this.io.trace(`sdk: ${describeError(e)}`);
  }
  item(it) {
    if (it.err) {
      this.io.trace(`sdk: ${it.err.message.toLowerCase()} from the host`);
      return encodeError(it.errId ?? "null", it.err);
    }
    const m = it.msg;
    if (m.method === void 0) {
      this.deliver(m);
      return void 0;
    }
    if (m.id === void 0) {
      this.notification(m);
      return void 0;
    }
    if (this.closing)
      return void 0;
    return this.request(m, m.id);
  }
  /** The answer to a request: at once for a value, later for a promise (or any thenable). */
  request(m, id) {
    let result;
    try {
      result = this.route(m, id);
      if (!isThenable(result))
        return this.encode(m, id, result);
    } catch (e) {
      return this.failure(m, id, e);
    }
    return Promise.resolve(result).then((r) => this.encode(m, id, r), (e) => this.failure(m, id, e));
  }
  /** The success answer, or the error to answer when the result has no JSON text (a BigInt, a cycle). */
  encode(m, id, result) {
    try {
      return this.fit(encodeResult(id, result), id);
    } catch (e) {
      return this.failure(m, id, e);
    }
  }
  failure(m, id, e) {
    if (!(e instanceof RpcError)) {
      this.io.trace(`sdk: ${m.method} failed: ${describeError(e)}`);
    }
    return encodeError(id, toWireError(e));
  }
  /** An answer too long for one line becomes an error naming the limit. */
  fit(line, id) {
    if (line.length * 3 <= MAX_LINE_BYTES || !overLimit(line))
      return line;
    const message = `the answer would exceed the ${MAX_LINE_BYTES >> 20} MiB line limit`;
    this.io.trace(`sdk: ${message}`);
    return encodeError(id, { code: codes.Failed, message });
  }
  route(m, id) {
    const method = m.method;
    const own = this.p.lookup(method);
    if (own)
      return own(m.params, this.ctx(method, id));
    switch (method) {
      case "initialize":
        return this.initialize(m.params);
      case "shutdown":
        void Promise.resolve().then(() => this.stop());
        this.closing = true;
        return null;
      case "agent/attach": {
        const fn = this.p.attachHandler();
        if (!fn)
          throw notFound(method);
        return fn(m.params, this.ctx(method, id));
      }
    }
    if (method.startsWith(EVENT_PREFIX)) {
      const fn = this.p.lookupEvent(method.slice(EVENT_PREFIX.length));
      return fn ? Promise.resolve(fn(m.params, this.ctx(method, id))).then(() => null) : null;
    }
    throw notFound(method);
  }
  initialize(params) {
    if (params !== void 0 && (typeof params !== "object" || Array.isArray(params))) {
      throw RpcError.invalidParams("initialize: params must be an object");
    }
    this.p.init = params;
    return { protocolVersion: PROTOCOL_VERSION, capabilities: this.p.capabilities() };
  }
  ctx(method, id) {
    return { method, id, plugin: this.p, signal: this.signal };
  }
  /** Notifications run one at a time, in the order the host sent them. */
  notification(m) {
    const method = m.method;
    if (method === "timer/fired") {
      this.timers.fired(m.params);
      return;
    }
    if ((method === "net/chunk" || method === "net/end") && this.streamNote(method, m.params))
      return;
    if (method === "shutdown") {
      this.stop();
      return;
    }
    const fn = method.startsWith(EVENT_PREFIX) ? this.p.lookupEvent(method.slice(EVENT_PREFIX.length)) : this.p.lookupNotification(method);
    if (!fn)
      return;
    this.notes = this.notes.then(async () => {
      try {
        await fn(m.params, this.ctx(method, void 0));
      } catch (e) {
        this.io.trace(`sdk: ${method} failed: ${describeError(e)}`);
      }
    });
  }
  /** The body of the stream, once its net/end comes. */
  streamBody(stream) {
    const body = new StreamedBody();
    this.bodies.set(stream, body);
    return body.done;
  }
  /** Takes a net/chunk or net/end of p.fetch's streams; others go to the plugin's handlers. */
  streamNote(method, params) {
    const p2 = params ?? {};
    const body = typeof p2.stream === "number" ? this.bodies.get(p2.stream) : void 0;
    if (!body)
      return false;
    if (method === "net/chunk")
      body.chunk(p2);
    else {
      this.bodies.delete(p2.stream);
      body.end(p2);
    }
    return true;
  }
  /** An answer of the host to one of the plugin's calls. */
  deliver(m) {
    const id = m.id;
    const w = this.pending.get(id);
    if (!w) {
      const method = this.late.get(id);
      if (method !== void 0) {
        this.late.delete(id);
        this.io.trace(`sdk: ${method}: late answer ignored`);
      } else
        this.io.trace(`sdk: an answer no call waits for (id ${id})`);
      return;
    }
    this.pending.delete(id);
    w.cancelTimeout?.();
    if (m.error)
      w.reject(RpcError.fromWire(m.error));
    else
      w.resolve(m.result);
  }
  // Calling the host.
  call(method, params, timeoutMs) {
    if (this.isStopped)
      return Promise.reject(new NotConnectedError(method));
    const id = String(this.nextId++);
    const line = encodeRequest(id, method, params);
    if (overLimit(line)) {
      return Promise.reject(new RpcError(codes.Failed, `${method}: the call would exceed the ${MAX_LINE_BYTES >> 20} MiB line limit`));
    }
    const answer = this.expect(id, method, timeoutMs);
    this.send(line);
    return answer;
  }
  batch(calls, timeoutMs) {
    if (this.isStopped)
      return Promise.reject(new NotConnectedError("batch"));
    const members = [];
    const outcomes = [];
    for (const c of calls) {
      if (c.notify) {
        members.push(encodeNotification(c.method, c.params));
        outcomes.push(Promise.resolve({}));
        continue;
      }
      const id = String(this.nextId++);
      members.push(encodeRequest(id, c.method, c.params));
      outcomes.push(this.expect(id, c.method, timeoutMs).then((result) => ({ result }), (error) => ({ error })));
    }
    if (members.length > 0)
      this.send(`[${members.join(",")}]`);
    return Promise.all(outcomes);
  }
  expect(id, method, timeoutMs) {
    return new Promise((resolve, reject) => {
      const w = { method, resolve, reject };
      if (timeoutMs > 0) {
        const t = this.timers.set(() => {
          if (this.pending.get(id) !== w)
            return;
          this.pending.delete(id);
          this.late.set(id, method);
          if (this.late.size > MAX_LATE)
            this.late.delete(this.late.keys().next().value);
          this.io.trace(`sdk: ${method}: no answer within ${spellMs(timeoutMs)}`);
          reject(new CallTimeoutError(method, timeoutMs));
        }, timeoutMs);
        w.cancelTimeout = () => this.timers.clear(t);
      }
      this.pending.set(id, w);
    });
  }
  // Stopping.
  isStopped = false;
  /**
   * Stops taking messages, ends the handlers' signal, lets the answers under
   * way go out (stopGraceMs at most), then resolves stopped.
   */
  stop() {
    if (this.isStopped)
      return;
    this.isStopped = true;
    this.closing = true;
    this.controller?.abort();
    const done = () => {
      this.stopReading();
      this.timers.close();
      for (const w of this.pending.values())
        w.reject(new NotConnectedError(w.method));
      this.pending.clear();
      this.onStopped();
      this.resolveStopped();
    };
    if (this.inflight === 0)
      return done();
    let finished = false;
    const once = () => {
      if (finished)
        return;
      finished = true;
      done();
    };
    this.drained = once;
    if (this.p.runtime === "node") {
      const t = setTimeout(() => {
        if (!finished)
          this.io.trace(`sdk: calls still running ${this.p.grace} ms after the end; leaving them`);
        once();
      }, this.p.grace);
      t.unref?.();
    }
  }
};
function isThenable(v) {
  return (typeof v === "object" || typeof v === "function") && v !== null && typeof v.then === "function";
}
function notFound(method) {
  return RpcError.withReason(codes.MethodNotFound, `no such method: ${method}`);
}

// src/plugin.ts
var DEFAULT_GREETING = "Hello";
var TOKEN_KEY = "token";
var p = new Plugin();
var greetings = p.file("greetings.json");
p.method("hello/greet", async (params, ctx) => {
  const name = params?.name;
  if (typeof name !== "string" || name === "") throw RpcError.invalidParams("name is required");
  const delay = params.delayMs ?? 0;
  if (typeof delay !== "number" || delay < 0) throw RpcError.invalidParams("delayMs must be a number, not negative");
  if (delay > 0) await p.sleep(delay);
  const settings = await p.settings(typeof params.project === "string" ? params.project : void 0);
  const greeting = typeof settings.greeting === "string" ? settings.greeting : DEFAULT_GREETING;
  let text = `${greeting}, ${name}${greetings.punctuation}`;
  if (settings.shout === true) text = text.toUpperCase();
  p.log("info", `greeted ${name}`);
  p.trace(`hello-js: greeting ${name}`);
  const lang = p.init?.lang ?? "en";
  return { text, emoji: greetings.emoji[lang] ?? greetings.emoji.en ?? "", token: await hasToken(ctx), waited: delay };
});
async function hasToken(ctx) {
  try {
    return await ctx.plugin.secret(TOKEN_KEY) !== null;
  } catch (e) {
    p.log("warn", `no token: ${e.message}`);
    return false;
  }
}
p.method("hello/fetch", async (params) => {
  if (typeof params?.url !== "string") throw RpcError.invalidParams("url is required");
  const res = await p.fetch(params.url, { headers: { accept: "application/json" } });
  return { status: res.status, type: res.headers["content-type"] ?? "", body: res.bodyEncoding === "utf8" ? res.body : null };
});
p.method("hello/echo", (params) => params ?? null);
p.on("ticket.column", (params) => {
  p.log("info", `ticket.column: ${JSON.stringify(params)}`);
});
p.run();
//# sourceMappingURL=plugin.mjs.map
