// The plugin: the methods and events it serves, and its connection to the
// host while it runs.

import { readFileSync } from "node:fs";
import { CallTimeoutError, codes, describeError, NotConnectedError, RpcError, spellMs, toWireError } from "./errors.js";
import { DEFAULT_FETCH_LIMITS, encodeBody, fetchParams, localFetch, lowerHeaders, overFetchBound, StreamedBody, type FetchInit, type FetchLimits } from "./fetch.js";
import { detectRuntime, readEnv, readStdin, rootFilePath, stdio, type Env, type Io, type RuntimeKind } from "./runtime.js";
import { HostTimers, LocalTimers, type Timer, type Timers } from "./timers.js";
import {
  decode,
  encodeError,
  encodeNotification,
  encodeRequest,
  encodeResult,
  MAX_LINE_BYTES,
  overLimit,
  type Item,
  type Message,
  type WireError,
} from "./wire.js";
import type {
  AgentAttachParams,
  Capabilities,
  FetchParams,
  FetchResult,
  InitializeParams,
  InitializeResult,
  LogParams,
  Methods,
  SettingsGetResult,
} from "../types/protocol.js";

/** The calls a plugin makes to the host, by name, from the protocol's schema. */
export type HostCalls = {
  [K in keyof Methods as Methods[K] extends { direction: "plugin-to-host"; notification: false } ? K : never]: Methods[K] & {
    params: unknown;
    result: unknown;
  };
};

/** The name of a call a plugin makes to the host. */
export type HostMethod = keyof HostCalls;

/** The version of the protocol the SDK speaks. */
export const PROTOCOL_VERSION = 1;

export { SDK_VERSION } from "./version.js";

/** A log level of the journal. */
export type LogLevel = LogParams["level"];

/** The part of an AbortSignal a handler reads; node's and the engine's are ones. */
export interface AbortSignalLike {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/** What a handler knows of the call it serves. */
export interface Context {
  /** The method called. */
  readonly method: string;
  /** The id of the call as the host wrote it (JSON text); undefined for a notification. */
  readonly id: string | undefined;
  /** The plugin, to call the host. */
  readonly plugin: Plugin;
  /** Aborted when the plugin stops (shutdown, end of stdin); absent where AbortController is. */
  readonly signal: AbortSignalLike | undefined;
}

/** Serves a method: the value it returns (or resolves to) is the result. */
export type Handler<P = any, R = unknown> = (params: P, ctx: Context) => R | Promise<R>;

/** Serves a notification: it has no answer. */
export type NotificationHandler<P = any> = (params: P, ctx: Context) => void | Promise<void>;

/** One call of a batch to the host; notify sends it as a notification. */
export interface BatchCall {
  method: string;
  params?: unknown;
  notify?: boolean;
}

/** The outcome of one call of a batch: its result or its error; neither for a notification. */
export interface BatchOutcome {
  result?: unknown;
  error?: RpcError;
}

/** Options of a call to the host. */
export interface CallOptions {
  /** Stop waiting after this many ms; 0 waits for ever. Default: PluginOptions.callTimeoutMs. */
  timeoutMs?: number;
}

export interface PluginOptions {
  /** Where it runs; detected by default (the run.js engine sets globalThis._importMeta_). */
  runtime?: RuntimeKind;
  /**
   * The delay of calls to the host. Default 60 s under node and none in
   * WASM, where the host answers every call or ends the instance and a
   * timer would cost the host two more messages per call.
   */
  callTimeoutMs?: number;
  /** How long the answers under way may take once the plugin stops; default 1 s. */
  stopGraceMs?: number;
  /** Limits of fetch made without the host (under node); those of net/fetch by default. */
  fetchLimits?: Partial<FetchLimits>;
}

const DEFAULT_CALL_TIMEOUT_MS = 60_000;
/** How many timed-out calls are remembered, to say "late answer ignored". */
const MAX_LATE = 1024;
const DEFAULT_STOP_GRACE_MS = 1000;
const EVENT_PREFIX = "event/";
const RESERVED = new Set(["initialize", "shutdown"]);
const LEVELS = new Set<string>(["debug", "info", "warn", "error"]);

/**
 * Plugin is one plugin's program. Register its methods and events, then
 * call run():
 *
 *     const p = new Plugin();
 *     p.method("notes/greet", async ({ name }, ctx) => ({ text: `Hello, ${name}!` }));
 *     p.run();
 *
 * The SDK answers initialize (protocol 1, its capabilities), answers
 * shutdown with null and then ends the program, answers -32601 to a method
 * nobody registered, keeps every id as the exact text the host wrote, and
 * answers batches with one array.
 */
export class Plugin {
  /** Where the plugin runs. */
  readonly runtime: RuntimeKind;
  /** What the host put in the environment (a process only). */
  readonly env: Env;
  /** What initialize said, once it came. */
  init: InitializeParams | undefined;

  private readonly methods = new Map<string, Handler>();
  private readonly events = new Map<string, NotificationHandler>();
  private readonly notifications = new Map<string, NotificationHandler>();
  private attach: Handler<AgentAttachParams> | undefined;
  private readonly callTimeoutMs: number;
  private readonly stopGraceMs: number;
  private readonly fetchLimits: FetchLimits;
  private conn: Connection | undefined;
  private traceOut: (text: string) => void = (text) => stdio().trace(text);

  constructor(opts: PluginOptions = {}) {
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
  method<P = any, R = unknown>(name: string, fn: Handler<P, R>): this {
    if (!name || typeof fn !== "function") throw new TypeError("method needs a name and a function");
    if (RESERVED.has(name)) throw new TypeError(`method(${name}): the SDK answers ${name} itself`);
    if (name === "agent/attach") throw new TypeError("method(agent/attach): use onAttach");
    if (name.startsWith(EVENT_PREFIX)) {
      throw new TypeError(`method(${name}): use on(${JSON.stringify(name.slice(EVENT_PREFIX.length))})`);
    }
    if (this.methods.has(name)) throw new TypeError(`method(${name}) registered twice`);
    this.methods.set(name, fn as Handler);
    return this;
  }

  /**
   * Serves the notification event/<name>, sent for the fact event:<name> of
   * the activation list. Event handlers run one at a time, in the order the
   * host sent the events.
   */
  on<P = any>(name: string, fn: NotificationHandler<P>): this {
    if (!name || name.startsWith(EVENT_PREFIX) || typeof fn !== "function") {
      throw new TypeError(`on(${JSON.stringify(name)}) needs a name without "event/" and a function`);
    }
    if (this.events.has(name)) throw new TypeError(`on(${name}) registered twice`);
    this.events.set(name, fn as NotificationHandler);
    return this;
  }

  /**
   * Serves another notification of the host (ws/message, net/chunk…), in
   * order with the events. timer/fired is the SDK's.
   */
  onNotification<P = any>(method: string, fn: NotificationHandler<P>): this {
    if (!method || method.startsWith(EVENT_PREFIX) || method === "timer/fired" || typeof fn !== "function") {
      throw new TypeError(`onNotification(${JSON.stringify(method)}): use on() for events; timer/fired is the SDK's`);
    }
    this.notifications.set(method, fn as NotificationHandler);
    return this;
  }

  /** Serves agent/attach; without it the SDK answers -32601. */
  onAttach(fn: Handler<AgentAttachParams>): this {
    if (typeof fn !== "function" || this.attach) throw new TypeError("onAttach needs a function and takes one");
    this.attach = fn;
    return this;
  }

  /**
   * Serves the host on stdin and stdout until shutdown or the end of stdin,
   * then ends the program. The promise resolves when it stops (before the
   * exit).
   */
  run(): Promise<void> {
    const io = stdio();
    let stopReading = () => {};
    const conn = this.connect(io, () => stopReading());
    stopReading = readStdin(
      (line) => conn.receive(line),
      () => conn.stop(),
    );
    return conn.stopped.then(() => io.exit(0));
  }

  /**
   * Serves the host through io instead of the standard streams: feed each
   * line the host sends to receive(), and end() when its input ends. run()
   * is this over stdin and stdout; tests use it directly.
   */
  serve(io: Io): { receive(line: string): void; end(): void; stopped: Promise<void> } {
    const conn = this.connect(io, () => {});
    return { receive: (l) => conn.receive(l), end: () => conn.stop(), stopped: conn.stopped };
  }

  private connect(io: Io, stopReading: () => void): Connection {
    if (this.conn) throw new Error("the plugin is already serving");
    this.traceOut = (t) => io.trace(t);
    const conn = new Connection(this, io, stopReading, () => {
      if (this.conn === conn) this.conn = undefined;
    });
    this.conn = conn;
    return conn;
  }

  // The host's services.

  /**
   * Calls method of the host and resolves to its result; an error answer
   * rejects with an RpcError of its code, no answer within the delay with a
   * CallTimeoutError. A method of the protocol has its params and result
   * typed from the schema (p.call("fs/read", {root: "temp", path: "a.txt"})
   * resolves to a string).
   */
  call<M extends HostMethod>(method: M, params: HostCalls[M]["params"], opts?: CallOptions): Promise<HostCalls[M]["result"]>;
  call<R = unknown, M extends string = string>(method: M extends HostMethod ? never : M, params?: unknown, opts?: CallOptions): Promise<R>;
  call(method: string, params?: unknown, opts: CallOptions = {}): Promise<unknown> {
    const conn = this.conn;
    if (!conn) return Promise.reject(new NotConnectedError(method));
    return conn.call(method, params, opts.timeoutMs ?? this.callTimeoutMs);
  }

  /** Sends a notification to the host. */
  notify(method: string, params?: unknown): void {
    const conn = this.conn;
    if (!conn) throw new NotConnectedError(method);
    conn.send(encodeNotification(method, params));
  }

  /**
   * Sends calls as one batch (one line); resolves to their outcomes in the
   * order of calls once every request is answered.
   */
  batch(calls: BatchCall[], opts: CallOptions = {}): Promise<BatchOutcome[]> {
    const conn = this.conn;
    if (!conn) return Promise.reject(new NotConnectedError("batch"));
    return conn.batch(calls, opts.timeoutMs ?? this.callTimeoutMs);
  }

  /**
   * The secret kept under key (secrets/get), or null when none is. A key
   * the manifest does not grant rejects with -32001 (codes.NotYours), a
   * keychain out of reach with -32002. Never print the value.
   */
  async secret(key: string): Promise<string | null> {
    const v = await this.call("secrets/get", { key });
    if (v !== null && typeof v !== "string") throw badAnswer("secrets/get", "a string or null", v);
    return v;
  }

  /**
   * The values the user chose (settings/get), by key; those left at their
   * default are absent: apply the manifest's defaults. Never a secret one.
   * With a project id, that project's .escouade.yml values come first.
   */
  async settings(project?: string): Promise<SettingsGetResult> {
    const v = await this.call("settings/get", project ? { project } : {});
    if (typeof v !== "object" || v === null || Array.isArray(v)) throw badAnswer("settings/get", "an object", v);
    return v as SettingsGetResult;
  }

  /** A UTF-8 file of the plugin's folder (files/read, 256 KB at most), path relative with "/". */
  async readFile(path: string): Promise<string> {
    const v = await this.call("files/read", { path });
    if (typeof v !== "string") throw badAnswer("files/read", "a string", v);
    return v;
  }

  /**
   * @deprecated A file other than a root JSON file: read it with
   * `await p.readFile(path)`, the one way; this overload gives the same
   * promise, for plugins written before (a path with "/" is never a root file, so data/x.json is read this way too).
   */
  file(path: `${string}/${string}`): Promise<string>;
  /**
   * A JSON file at the plugin's root (rules.json), parsed, synchronously:
   * usable at the top of the module. It is read with readFileSync of
   * node:fs (in WASM the host gives the instance these files, 256 KB each,
   * 1 MB in all, never the manifest; under node they are the files of the
   * folder). Read any other file with `await p.readFile(path)`.
   */
  file<T = unknown>(name: `${string}.json`): T;
  /** @deprecated Read a file other than a root JSON file with `await p.readFile(path)`. */
  file(path: string): Promise<string>;
  file<T = unknown>(path: string): T | Promise<string> {
    if (isRootJSON(path)) return JSON.parse(this.fileText(path)) as T;
    return this.readFile(path);
  }

  /** The text of a JSON file at the plugin's root; see file. */
  fileText(name: string): string {
    checkRootFile(name);
    try {
      return readFileSync(rootFilePath(name), "utf8");
    } catch (e) {
      const why = (e as { code?: string }).code === "ENOENT" ? "no such file at the plugin's root" : String(e);
      throw new Error(`${name}: ${why}`);
    }
  }

  /**
   * Writes message to the journal at level, one journal line per line. An
   * unknown level is sent as info; while not serving, the line goes to stderr.
   */
  log(level: LogLevel, message: string): void {
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
  async fetch(input: string | FetchParams, init?: FetchInit): Promise<FetchResult> {
    const params = fetchParams(input, init);
    if (this.runtime === "node") return localFetch(params, this.fetchLimits);
    try {
      const r = (await this.call("net/fetch", params)) as FetchResult;
      return { ...r, headers: lowerHeaders(r.headers) };
    } catch (e) {
      if (overFetchBound(e)) return this.streamed(params);
      const hasFetch = typeof (globalThis as { fetch?: unknown }).fetch === "function";
      if (e instanceof RpcError && e.code === codes.MethodNotFound && hasFetch) return localFetch(params, this.fetchLimits);
      throw e;
    }
  }

  /**
   * A fetch whose body is past what a net/fetch answer carries (4 MiB),
   * made again through net/stream and gathered, in net/fetch's shape.
   */
  private async streamed(params: FetchParams): Promise<FetchResult> {
    const conn = this.conn;
    if (!conn) throw new NotConnectedError("net/stream");
    const head = await this.call("net/stream", params);
    // The answer's task ends before the next line is read: no chunk comes
    // before the body is listening.
    const bytes = await conn.streamBody(head.stream);
    return { status: head.status, headers: lowerHeaders(head.headers), ...encodeBody(bytes) };
  }

  /** Calls fn once after ms milliseconds (timer/set in WASM, setTimeout under node). */
  setTimer(fn: () => void, ms: number): Timer {
    const conn = this.conn;
    if (!conn) throw new NotConnectedError("timer/set");
    return conn.timers.set(fn, ms);
  }

  /** Clears a timer of setTimer that has not fired. */
  clearTimer(t: Timer): void {
    this.conn?.timers.clear(t);
  }

  /** Resolves after ms milliseconds. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.setTimer(resolve, ms));
  }

  /** Writes a trace line on stderr, which the host journals. */
  trace(text: string): void {
    this.traceOut(text);
  }

  // What the connection asks of the plugin.

  /** @internal */ lookup(method: string): Handler | undefined {
    return this.methods.get(method);
  }
  /** @internal */ lookupEvent(name: string): NotificationHandler | undefined {
    return this.events.get(name);
  }
  /** @internal */ lookupNotification(method: string): NotificationHandler | undefined {
    return this.notifications.get(method);
  }
  /** @internal */ attachHandler(): Handler<AgentAttachParams> | undefined {
    return this.attach;
  }
  /** @internal */ capabilities(): Capabilities {
    return { batch: true, attach: this.attach !== undefined };
  }
  /** @internal */ get grace(): number {
    return this.stopGraceMs;
  }
}

/** A root JSON file's name: one segment ending in .json, not hidden, not the manifest. */
/** Whether p.file reads name from the root JSON files rather than with files/read. */
function isRootJSON(name: string): boolean {
  return typeof name === "string" && name.endsWith(".json") && !name.includes("/") && !name.includes("\\") && !name.startsWith(".");
}

function checkRootFile(name: string): void {
  const ok =
    typeof name === "string" &&
    name.endsWith(".json") &&
    !name.includes("/") &&
    !name.includes("\\") &&
    !name.startsWith(".") &&
    name.toLowerCase() !== "escouade-plugin.json";
  if (!ok) {
    throw new TypeError(
      `file(${JSON.stringify(name)}): only a JSON file at the plugin's root, other than the manifest; read other files with await p.readFile(path)`,
    );
  }
}

function badAnswer(method: string, want: string, got: unknown): Error {
  let text = JSON.stringify(got) ?? String(got);
  if (text.length > 80) text = text.slice(0, 80) + "…";
  return new Error(`${method} answered ${text}, not ${want}`);
}

interface Pending {
  method: string;
  resolve(v: unknown): void;
  reject(e: unknown): void;
  cancelTimeout?: () => void;
}

/**
 * What an item of a line gets: the text of its answer, or nothing; a
 * promise of it while its handler works. A handler that returns a value
 * has its answer at once, without a promise: in the run.js engine every
 * promise job is a step of interpreted code, and the usual call needs none.
 */
type Answer = string | undefined | Promise<string | undefined>;

/**
 * Connection is one run of the plugin: the calls of the host it serves and
 * the calls to the host it waits on.
 */
class Connection {
  readonly timers: Timers;
  readonly stopped: Promise<void>;
  closing = false;

  private nextId = 1;
  private readonly pending = new Map<string, Pending>();
  private readonly late = new Map<string, string>();
  /** Answers under way: stop lets them go out first. */
  private inflight = 0;
  /** Called once no answer is under way, while stopping. */
  private drained: (() => void) | undefined;
  private notes: Promise<void> = Promise.resolve();
  /** The bodies of p.fetch's net/stream, by stream. */
  private readonly bodies = new Map<number, StreamedBody>();
  private readonly controller: AbortController | undefined;
  /** The controller's signal, read once: every call's context carries it. */
  private readonly signal: AbortSignalLike | undefined;
  private resolveStopped!: () => void;

  constructor(
    private readonly p: Plugin,
    private readonly io: Io,
    private readonly stopReading: () => void,
    private readonly onStopped: () => void,
  ) {
    const trace = (t: string) => io.trace(t);
    const host = { call: (m: string, params: unknown, o?: CallOptions) => this.call(m, params, o?.timeoutMs ?? 0) };
    this.timers = p.runtime === "wasm" ? new HostTimers(host, trace) : new LocalTimers(trace);
    const AC = (globalThis as { AbortController?: typeof AbortController }).AbortController;
    this.controller = AC ? new AC() : undefined;
    this.signal = this.controller?.signal;
    this.stopped = new Promise((r) => (this.resolveStopped = r));
  }

  send(line: string): void {
    this.io.write(line);
  }

  // Reading.

  receive(line: string): void {
    const d = decode(line);
    if (d === undefined) return;
    let answer: Answer;
    try {
      answer = Array.isArray(d) ? this.batchAnswer(d) : this.item(d);
    } catch (e) {
      // Only what cannot be told, even as an error answer (a thrown value
      // whose text throws), comes here: no answer, a trace.
      this.traceError(e);
      return;
    }
    if (typeof answer === "string") this.sendOrTrace(answer);
    else if (answer !== undefined) this.later(answer);
  }

  /** One array for a batch, once every member is answered. */
  private batchAnswer(items: Item[]): Promise<string | undefined> {
    return Promise.all(items.map((it) => this.item(it))).then((list) => {
      const out = list.filter((a): a is string => a !== undefined);
      // A batch of notifications only gets no answer at all.
      return out.length > 0 ? this.fit(`[${out.join(",")}]`, "null") : undefined;
    });
  }

  /** Sends the answer once it comes, counted under way until then. */
  private later(answer: Promise<string | undefined>): void {
    this.inflight++;
    answer.then(this.sendLater, this.failLater);
  }

  private readonly sendLater = (text: string | undefined): void => {
    if (text !== undefined) this.sendOrTrace(text);
    this.settle();
  };

  private readonly failLater = (e: unknown): void => {
    this.traceError(e);
    this.settle();
  };

  private settle(): void {
    if (--this.inflight === 0) this.drained?.();
  }

  private sendOrTrace(text: string): void {
    try {
      this.io.write(text);
    } catch (e) {
      this.traceError(e);
    }
  }

  private traceError(e: unknown): void {
    this.io.trace(`sdk: ${describeError(e)}`);
  }

  private item(it: Item): Answer {
    if (it.err) {
      this.io.trace(`sdk: ${it.err.message.toLowerCase()} from the host`);
      return encodeError(it.errId ?? "null", it.err);
    }
    const m = it.msg!;
    if (m.method === undefined) {
      this.deliver(m);
      return undefined;
    }
    if (m.id === undefined) {
      this.notification(m);
      return undefined;
    }
    if (this.closing) return undefined; // shutdown came: no new message is taken
    return this.request(m, m.id);
  }

  /** The answer to a request: at once for a value, later for a promise (or any thenable). */
  private request(m: Message, id: string): Answer {
    let result: unknown;
    try {
      result = this.route(m, id);
      if (!isThenable(result)) return this.encode(m, id, result);
    } catch (e) {
      return this.failure(m, id, e);
    }
    return Promise.resolve(result).then(
      (r) => this.encode(m, id, r),
      (e) => this.failure(m, id, e),
    );
  }

  /** The success answer, or the error to answer when the result has no JSON text (a BigInt, a cycle). */
  private encode(m: Message, id: string, result: unknown): string {
    try {
      return this.fit(encodeResult(id, result), id);
    } catch (e) {
      return this.failure(m, id, e);
    }
  }

  private failure(m: Message, id: string, e: unknown): string {
    if (!(e instanceof RpcError)) {
      this.io.trace(`sdk: ${m.method} failed: ${describeError(e)}`);
    }
    return encodeError(id, toWireError(e));
  }

  /** An answer too long for one line becomes an error naming the limit. */
  private fit(line: string, id: string): string {
    if (line.length * 3 <= MAX_LINE_BYTES || !overLimit(line)) return line;
    // The Go side's answer to the same case: -32004 naming the limit.
    const message = `the answer would exceed the ${MAX_LINE_BYTES >> 20} MiB line limit`;
    this.io.trace(`sdk: ${message}`);
    return encodeError(id, { code: codes.Failed, message });
  }

  private route(m: Message, id: string): unknown {
    const method = m.method!;
    // First the plugin's own methods, the usual call: none of them is one
    // the SDK serves below (method() refuses those names).
    const own = this.p.lookup(method);
    if (own) return own(m.params, this.ctx(method, id));
    switch (method) {
      case "initialize":
        return this.initialize(m.params);
      case "shutdown":
        // Answered at once; the calls under way may answer after it. A
        // promise job rather than queueMicrotask, which an engine may lack.
        void Promise.resolve().then(() => this.stop());
        this.closing = true;
        return null;
      case "agent/attach": {
        const fn = this.p.attachHandler();
        if (!fn) throw notFound(method);
        return fn(m.params as AgentAttachParams, this.ctx(method, id));
      }
    }
    if (method.startsWith(EVENT_PREFIX)) {
      const fn = this.p.lookupEvent(method.slice(EVENT_PREFIX.length));
      return fn ? Promise.resolve(fn(m.params, this.ctx(method, id))).then(() => null) : null;
    }
    throw notFound(method);
  }

  private initialize(params: unknown): InitializeResult {
    if (params !== undefined && (typeof params !== "object" || Array.isArray(params))) {
      throw RpcError.invalidParams("initialize: params must be an object");
    }
    this.p.init = params as InitializeParams | undefined;
    return { protocolVersion: PROTOCOL_VERSION, capabilities: this.p.capabilities() };
  }

  private ctx(method: string, id: string | undefined): Context {
    return { method, id, plugin: this.p, signal: this.signal };
  }

  /** Notifications run one at a time, in the order the host sent them. */
  private notification(m: Message): void {
    const method = m.method!;
    if (method === "timer/fired") {
      this.timers.fired(m.params);
      return;
    }
    if ((method === "net/chunk" || method === "net/end") && this.streamNote(method, m.params)) return;
    if (method === "shutdown") {
      this.stop();
      return;
    }
    const fn = method.startsWith(EVENT_PREFIX)
      ? this.p.lookupEvent(method.slice(EVENT_PREFIX.length))
      : this.p.lookupNotification(method);
    if (!fn) return;
    this.notes = this.notes.then(async () => {
      try {
        await fn(m.params, this.ctx(method, undefined));
      } catch (e) {
        this.io.trace(`sdk: ${method} failed: ${describeError(e)}`);
      }
    });
  }

  /** The body of the stream, once its net/end comes. */
  streamBody(stream: number): Promise<Uint8Array> {
    const body = new StreamedBody();
    this.bodies.set(stream, body);
    return body.done;
  }

  /** Takes a net/chunk or net/end of p.fetch's streams; others go to the plugin's handlers. */
  private streamNote(method: string, params: unknown): boolean {
    const p = (params ?? {}) as { stream?: unknown; data?: unknown; bodyEncoding?: unknown; error?: unknown };
    const body = typeof p.stream === "number" ? this.bodies.get(p.stream) : undefined;
    if (!body) return false;
    if (method === "net/chunk") body.chunk(p);
    else {
      this.bodies.delete(p.stream as number);
      body.end(p);
    }
    return true;
  }

  /** An answer of the host to one of the plugin's calls. */
  private deliver(m: Message): void {
    const id = m.id!;
    const w = this.pending.get(id);
    if (!w) {
      const method = this.late.get(id);
      if (method !== undefined) {
        this.late.delete(id);
        this.io.trace(`sdk: ${method}: late answer ignored`);
      } else this.io.trace(`sdk: an answer no call waits for (id ${id})`);
      return;
    }
    this.pending.delete(id);
    w.cancelTimeout?.();
    if (m.error) w.reject(RpcError.fromWire(m.error));
    else w.resolve(m.result);
  }

  // Calling the host.

  call(method: string, params: unknown, timeoutMs: number): Promise<unknown> {
    if (this.isStopped) return Promise.reject(new NotConnectedError(method));
    const id = String(this.nextId++);
    const line = encodeRequest(id, method, params);
    if (overLimit(line)) {
      return Promise.reject(new RpcError(codes.Failed, `${method}: the call would exceed the ${MAX_LINE_BYTES >> 20} MiB line limit`));
    }
    const answer = this.expect(id, method, timeoutMs);
    this.send(line);
    return answer;
  }

  batch(calls: BatchCall[], timeoutMs: number): Promise<BatchOutcome[]> {
    if (this.isStopped) return Promise.reject(new NotConnectedError("batch"));
    const members: string[] = [];
    const outcomes: Array<Promise<BatchOutcome>> = [];
    for (const c of calls) {
      if (c.notify) {
        members.push(encodeNotification(c.method, c.params));
        outcomes.push(Promise.resolve({}));
        continue;
      }
      const id = String(this.nextId++);
      members.push(encodeRequest(id, c.method, c.params));
      outcomes.push(
        this.expect(id, c.method, timeoutMs).then(
          (result) => ({ result }),
          (error) => ({ error }),
        ),
      );
    }
    if (members.length > 0) this.send(`[${members.join(",")}]`);
    return Promise.all(outcomes);
  }

  private expect(id: string, method: string, timeoutMs: number): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const w: Pending = { method, resolve, reject };
      if (timeoutMs > 0) {
        const t = this.timers.set(() => {
          if (this.pending.get(id) !== w) return;
          this.pending.delete(id);
          this.late.set(id, method);
          // Remembered to name a late answer; the oldest are forgotten.
          if (this.late.size > MAX_LATE) this.late.delete(this.late.keys().next().value!);
          this.io.trace(`sdk: ${method}: no answer within ${spellMs(timeoutMs)}`);
          reject(new CallTimeoutError(method, timeoutMs));
        }, timeoutMs);
        w.cancelTimeout = () => this.timers.clear(t);
      }
      this.pending.set(id, w);
    });
  }

  // Stopping.

  private isStopped = false;

  /**
   * Stops taking messages, ends the handlers' signal, lets the answers under
   * way go out (stopGraceMs at most), then resolves stopped.
   */
  stop(): void {
    if (this.isStopped) return;
    this.isStopped = true;
    this.closing = true;
    this.controller?.abort();
    const done = () => {
      this.stopReading();
      this.timers.close();
      for (const w of this.pending.values()) w.reject(new NotConnectedError(w.method));
      this.pending.clear();
      this.onStopped();
      this.resolveStopped();
    };
    if (this.inflight === 0) return done();
    let finished = false;
    const once = () => {
      if (finished) return;
      finished = true;
      done();
    };
    this.drained = once;
    // In WASM the host bounds the wait itself: it stops the instance once
    // shutdown is answered, and a timer here would cost it a timer/set.
    if (this.p.runtime === "node") {
      const t = setTimeout(() => {
        if (!finished) this.io.trace(`sdk: calls still running ${this.p.grace} ms after the end; leaving them`);
        once();
      }, this.p.grace);
      (t as { unref?: () => void }).unref?.();
    }
  }
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (typeof v === "object" || typeof v === "function") && v !== null && typeof (v as { then?: unknown }).then === "function";
}

function notFound(method: string): RpcError {
  return RpcError.withReason(codes.MethodNotFound, `no such method: ${method}`);
}

export type { WireError };
