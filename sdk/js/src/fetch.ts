// fetch: net/fetch of the host in WASM (docs/protocol.md#netfetch); under node, a
// process has its own network and the host answers net/fetch -32601, so the
// SDK makes the request with node's fetch and gives the answer the same
// shape, following no redirect and within the same default limits.

import { codes, RpcError } from "./errors.js";
import type { BodyEncoding, FetchParams, FetchResult, Headers } from "../types/protocol.js";

/** What p.fetch takes besides the URL: the members of net/fetch. */
export interface FetchInit {
  method?: string;
  headers?: Headers;
  body?: string;
  bodyEncoding?: BodyEncoding;
}

/** The limits of a request made without the host; those of net/fetch by default. */
export interface FetchLimits {
  /** Connect, headers and body together; default 10 s. */
  timeoutMs: number;
  /** Decoded body; one byte over is an error, never a truncation; default 1 MiB. */
  maxBytes: number;
}

export const DEFAULT_FETCH_LIMITS: FetchLimits = { timeoutMs: 10_000, maxBytes: 1 << 20 };

/** The params of net/fetch from p.fetch's arguments. */
export function fetchParams(input: string | FetchParams, init?: FetchInit): FetchParams {
  const base: FetchParams = typeof input === "string" ? { url: input } : { ...input };
  if (init) Object.assign(base, init);
  if (typeof base.url !== "string" || base.url === "") throw new TypeError("fetch: a URL is required");
  return base;
}

/**
 * Headers with lower-case names, as node's fetch gives them: net/fetch
 * gives Go's canonical names (Content-Type), and p.fetch answers the same
 * under node and in WASM. Names that differ only by case are joined with ", ".
 */
export function lowerHeaders(h: Headers | undefined): Headers {
  const out: Headers = {};
  for (const [name, value] of Object.entries(h ?? {})) {
    const lower = name.toLowerCase();
    out[lower] = lower in out ? `${out[lower]}, ${value}` : value;
  }
  return out;
}

/** Headers joined the host's way: repeated names joined with ", ". */
function joinHeaders(h: globalThis.Headers): Headers {
  const out: Headers = {};
  h.forEach((value, name) => {
    out[name] = name in out ? `${out[name]}, ${value}` : value;
  });
  return out;
}

function failed(reason: string): RpcError {
  return RpcError.withReason(codes.Failed, reason);
}

/** Refusals the host makes before sending anything, made the same here. */
function refuse(p: FetchParams): void {
  const method = (p.method ?? "GET").toUpperCase();
  if (method === "CONNECT" || method === "TRACE") {
    throw RpcError.withReason(codes.Forbidden, `the method ${method} is refused`);
  }
}

const DROPPED = new Set(["host", "connection", "transfer-encoding"]);

/** The plugin's headers less those the host drops (Host, Connection, Proxy-*, Transfer-Encoding). */
function sentHeaders(h: Headers | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(h ?? {})) {
    const lower = name.toLowerCase();
    if (DROPPED.has(lower) || lower.startsWith("proxy-")) continue;
    out[name] = value;
  }
  return out;
}

/** net/fetch made by the runtime's own fetch, for a program that runs as a process. */
export async function localFetch(p: FetchParams, limits: FetchLimits = DEFAULT_FETCH_LIMITS): Promise<FetchResult> {
  refuse(p);
  const g = globalThis as { fetch?: typeof fetch; Buffer?: typeof Buffer };
  if (typeof g.fetch !== "function") throw failed("this runtime has no fetch");
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
  try {
    const init: RequestInit = {
      method: p.method ?? "GET",
      headers: sentHeaders(p.headers),
      redirect: "manual",
      signal: controller.signal,
    };
    if (p.body !== undefined) init.body = p.bodyEncoding === "base64" ? g.Buffer!.from(p.body, "base64") : p.body;
    const res = await g.fetch(p.url, init);
    const bytes = await readCapped(res, limits.maxBytes);
    return { status: res.status, headers: joinHeaders(res.headers), ...encodeBody(bytes) };
  } catch (e) {
    if (e instanceof RpcError) throw e;
    if (controller.signal.aborted) throw failed(`no answer within ${limits.timeoutMs} ms`);
    const cause = (e as { cause?: { message?: string } }).cause?.message;
    throw failed(cause ?? (e instanceof Error ? e.message : String(e)));
  } finally {
    clearTimeout(timer);
  }
}

/** The body, stopping at one byte over max. */
async function readCapped(res: Response, max: number): Promise<Uint8Array> {
  if (!res.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
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

/** UTF-8 text as is, base64 when the bytes are not valid UTF-8, as net/fetch answers. */
export function encodeBody(bytes: Uint8Array): { body: string; bodyEncoding: BodyEncoding } {
  try {
    return { body: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes), bodyEncoding: "utf8" };
  } catch {
    return { body: toBase64(bytes), bodyEncoding: "base64" };
  }
}

/** base64 of bytes, without Buffer or btoa (the run.js engine may lack both). */
export function toBase64(bytes: Uint8Array): string {
  const out: string[] = [];
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const left = bytes.length - i;
    out.push(B64[(n >> 18) & 63]! + B64[(n >> 12) & 63]! + (left > 1 ? B64[(n >> 6) & 63]! : "=") + (left > 2 ? B64[n & 63]! : "="));
  }
  return out.join("");
}

/**
 * Whether net/fetch refused an answer for its 4 MiB bound and named
 * net/stream as the way (docs/protocol.md#fetch-bounds): p.fetch then
 * reads the body through net/stream, within limits.netMaxBytes.
 */
export function overFetchBound(e: unknown): boolean {
  return e instanceof RpcError && e.code === codes.Failed && (e.reason ?? "").includes("read it through net/stream");
}

/**
 * The body of net/stream, gathered from its net/chunk notifications until
 * its net/end; the host bounds its size with limits.netMaxBytes.
 */
export class StreamedBody {
  private readonly chunks: Uint8Array[] = [];
  private size = 0;
  readonly done: Promise<Uint8Array>;
  private settle!: { resolve: (b: Uint8Array) => void; reject: (e: Error) => void };

  constructor() {
    this.done = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
  }

  chunk(p: { data?: unknown; bodyEncoding?: unknown }): void {
    const text = typeof p.data === "string" ? p.data : "";
    const bytes = p.bodyEncoding === "base64" ? fromBase64(text) : bodyBytes({ body: text, bodyEncoding: "utf8" });
    this.chunks.push(bytes);
    this.size += bytes.byteLength;
  }

  end(p: { error?: unknown }): void {
    if (typeof p.error === "string" && p.error !== "") {
      this.settle.reject(failed(p.error));
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
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** The bytes of a base64 text, without Buffer or atob (the run.js engine may lack both). */
export function fromBase64(text: string): Uint8Array {
  const clean = text.replace(/[^A-Za-z0-9+/]/g, "");
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let bits = 0;
  let acc = 0;
  let n = 0;
  for (let i = 0; i < clean.length; i++) {
    acc = (acc << 6) | B64.indexOf(clean[i]!);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (acc >> bits) & 0xff;
    }
  }
  return out.subarray(0, n);
}

/** The bytes of a body of net/fetch: UTF-8 text encoded, base64 decoded. */
export function bodyBytes(r: { body: string; bodyEncoding: BodyEncoding }): Uint8Array {
  if (r.bodyEncoding === "base64") return fromBase64(r.body);
  const out: number[] = [];
  const s = r.body;
  for (let i = 0; i < s.length; i++) {
    let c = s.codePointAt(i)!;
    if (c > 0xffff) i++;
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd; // a lone surrogate
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return Uint8Array.from(out);
}
