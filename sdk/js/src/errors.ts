// Errors of the wire: the codes of JSON-RPC 2.0 and those Escouade adds
// (docs/protocol.md#7-what-the-host-serves-a-process), with the messages
// the Go side of the project gives them.

import type { WireError } from "./wire.js";

/** Every code a plugin meets, by name. */
export const codes = {
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
  Missing: -32005,
} as const;

const messages: Record<number, string> = {
  [codes.ParseError]: "Parse error",
  [codes.InvalidRequest]: "Invalid Request",
  [codes.MethodNotFound]: "Method not found",
  [codes.InvalidParams]: "Invalid params",
  [codes.InternalError]: "Internal error",
  [codes.NotYours]: "The secret is not the plugin's",
  [codes.Keychain]: "The keychain is out of reach",
  [codes.Forbidden]: "The plugin may not reach it",
  [codes.Failed]: "The request failed on the way",
  [codes.Missing]: "The file is missing",
};

/**
 * RpcError is an error answer: thrown by a handler, it goes to the host with
 * its code, message and data; a call to the host that the host refused
 * rejects with one.
 */
export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;

  /** An error with code; the message defaults to the code's usual one. */
  constructor(code: number, message?: string, data?: unknown) {
    super(message ?? messages[code] ?? `JSON-RPC error ${code}`);
    this.name = "RpcError";
    this.code = code;
    this.data = data;
  }

  /** The reason of data {"reason": …}, as the host gives it, or "". */
  get reason(): string {
    const d = this.data as { reason?: unknown } | null | undefined;
    return d && typeof d === "object" && typeof d.reason === "string" ? d.reason : "";
  }

  /** -32602 "Invalid params: <detail>", the form the Go kit answers. */
  static invalidParams(detail: string): RpcError {
    return new RpcError(codes.InvalidParams, `${messages[codes.InvalidParams]}: ${detail}`);
  }

  /** An error of code with the usual message and data {"reason": reason}. */
  static withReason(code: number, reason: string): RpcError {
    return new RpcError(code, undefined, { reason });
  }

  /** The wire form of the error. */
  toWire(): WireError {
    const e: WireError = { code: this.code, message: this.message };
    if (this.data !== undefined) e.data = this.data;
    return e;
  }

  static fromWire(e: WireError): RpcError {
    return new RpcError(e.code, e.message, e.data);
  }
}

/**
 * CallTimeoutError rejects a call to the host that got no answer within its
 * delay. A later answer is ignored, as the host ignores a late one.
 */
export class CallTimeoutError extends Error {
  readonly method: string;
  readonly ms: number;
  constructor(method: string, ms: number) {
    super(`${method}: no answer within ${spellMs(ms)}`);
    this.name = "CallTimeoutError";
    this.method = method;
    this.ms = ms;
  }
}

/** NotConnectedError rejects a call to the host made while the plugin does not run. */
export class NotConnectedError extends Error {
  constructor(method: string) {
    super(`${method}: not connected to the host; call it from a handler while run() serves`);
    this.name = "NotConnectedError";
  }
}

/** Durations as the host prints them: 300 ms, 5 s, 1 min. */
export function spellMs(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms >= 1000 && ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}

/** The wire form of anything a handler threw: an RpcError as is, anything else -32603. */
export function toWireError(e: unknown): WireError {
  if (e instanceof RpcError) return e.toWire();
  const message = e instanceof Error ? e.message : String(e);
  return { code: codes.InternalError, message: message || messages[codes.InternalError]! };
}

/**
 * An exception as a trace shows it: its text, then its stack. Node's stack
 * starts with the text already; the run.js engine's (QuickJS) holds the
 * frames only, which alone would hide what was thrown.
 */
export function describeError(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const head = String(e);
  const stack = typeof e.stack === "string" ? e.stack.replace(/\n$/, "") : "";
  if (stack === "") return head;
  return stack.startsWith(head) ? stack : `${head}\n${stack}`;
}
