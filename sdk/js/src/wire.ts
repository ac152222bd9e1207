// The wire of protocol 1 (docs/protocol.md#3-messages): one JSON-RPC 2.0 message or batch
// per line. Decoding keeps each id as the exact text it came as, since
// JSON.parse turns 9007199254740993 into 9007199254740992 and "\u0041" into
// "A": the answer must carry the id byte for byte.

/** The longest line either side sends: 8 MiB. */
export const MAX_LINE_BYTES = 8 << 20;

/** The error member of an answer, as it goes on the wire. */
export interface WireError {
  code: number;
  message: string;
  data?: unknown;
}

/** One valid message of a line. Ids are raw JSON text: `7`, `"a\"b"`, `null`. */
export interface Message {
  /** The id's exact text; undefined for a notification. */
  id?: string;
  method?: string;
  params?: unknown;
  /** Set for a success answer (the result may itself be null). */
  hasResult?: boolean;
  result?: unknown;
  error?: WireError;
}

/** One item of a line: a message, or the error to answer it with. */
export interface Item {
  msg?: Message;
  err?: WireError;
  /** The id to answer err with: the member's id when it could be read, else "null". */
  errId?: string;
}

/** A decoded line: one item for a single message, one per member of a batch. */
export interface Line {
  batch: boolean;
  items: Item[];
}

export const PARSE_ERROR: WireError = { code: -32700, message: "Parse error" };
export const INVALID_REQUEST: WireError = { code: -32600, message: "Invalid Request" };

/**
 * Whether line holds JSON whitespace only. A loop rather than a regular
 * expression: QuickJS tries an anchored expression at every position, which
 * costs a whole 8 MiB line.
 */
function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) return false;
  }
  return true;
}

/**
 * Decodes one line given without its "\n" (a "\r" before it is tolerated).
 * It never throws: what is not a message becomes an item with the error to
 * answer. A blank line gives no item.
 */
export function decodeLine(line: string): Line {
  if (isBlank(line)) return { batch: false, items: [] };
  if (overLimit(line)) return { batch: false, items: [{ err: PARSE_ERROR, errId: "null" }] };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { batch: false, items: [{ err: PARSE_ERROR, errId: "null" }] };
  }
  const scan = new Scanner(line);
  if (!Array.isArray(value)) {
    // Without an id (a notification) there is nothing to scan for.
    const fields = isObject(value) ? (hasId(value) ? scan.topObject() : {}) : undefined;
    return { batch: false, items: [decodeItem(value, fields)] };
  }
  if (value.length === 0) return { batch: false, items: [{ err: INVALID_REQUEST, errId: "null" }] };
  const members = value.some((v) => isObject(v) && hasId(v)) ? scan.topArray() : value.map((v) => (isObject(v) ? {} : undefined));
  return { batch: true, items: value.map((v, i) => decodeItem(v, members[i])) };
}

/** Whether line is over MAX_LINE_BYTES once encoded as UTF-8. */
export function overLimit(line: string): boolean {
  // A UTF-16 unit is 1 to 3 bytes: count only when it could matter.
  if (line.length > MAX_LINE_BYTES) return true;
  if (line.length * 3 <= MAX_LINE_BYTES) return false;
  return utf8Length(line) > MAX_LINE_BYTES;
}

/** The UTF-8 length of s, without Buffer or TextEncoder (the run.js engine may lack both). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** What the scanner found of a message: the raw text of its id, if it has one. */
interface Fields {
  id?: string;
}

function hasId(v: Record<string, unknown>): boolean {
  return Object.prototype.hasOwnProperty.call(v, "id");
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function invalid(errId = "null"): Item {
  return { err: INVALID_REQUEST, errId };
}

/** Checks one value as a message (JSON-RPC 2.0 and docs/protocol.md#3-messages). */
function decodeItem(value: unknown, fields: Fields | undefined): Item {
  if (!isObject(value) || fields === undefined) return invalid();
  const has = (k: string) => Object.prototype.hasOwnProperty.call(value, k);
  const rawId = fields.id;
  if (rawId !== undefined && rawId !== "null" && typeof value.id !== "number" && typeof value.id !== "string") {
    return invalid(); // an object, array or boolean id
  }
  const idText = rawId ?? "null";
  if (value.jsonrpc !== "2.0") return invalid(idText);
  if (has("method")) {
    const method = value.method;
    if (typeof method !== "string" || method === "" || rawId === "null" || has("result") || has("error")) {
      return invalid(idText);
    }
    const params = value.params ?? undefined;
    if (params !== undefined && typeof params !== "object") return invalid(idText);
    const msg: Message = { method, params };
    if (rawId !== undefined) msg.id = rawId;
    return { msg };
  }
  return decodeResponse(value, rawId, has);
}

function decodeResponse(value: Record<string, unknown>, rawId: string | undefined, has: (k: string) => boolean): Item {
  const idText = rawId ?? "null";
  if (rawId === undefined || has("params") || has("result") === has("error")) return invalid(idText);
  if (has("result")) {
    if (rawId === "null") return invalid(idText);
    return { msg: { id: rawId, hasResult: true, result: value.result } };
  }
  const e = value.error;
  if (!isObject(e) || !Number.isInteger(e.code) || typeof e.message !== "string") return invalid(idText);
  const error: WireError = { code: e.code as number, message: e.message };
  if (Object.prototype.hasOwnProperty.call(e, "data")) error.data = e.data;
  return { msg: { id: rawId, error } };
}

const STRUCTURAL = /["{}[\]]/g;
const SCALAR_END = /[,}\]\s]/g;

/**
 * Scanner walks a line JSON.parse has already accepted, to find the raw text
 * of the id members. It walks the members of the top-level object (or of
 * each object in the top-level array) in order and stops at the first "id"
 * at that level, so that a message written as the host writes it
 * ({"jsonrpc":"2.0","id":…,"method":…,"params":…}) costs a few characters
 * whatever the size of its params. What it must skip (params before the id,
 * the rest of a batch member) it skips with native string and
 * regular-expression searches. A member named twice is read as JSON.parse
 * reads it, except the id, whose first occurrence is kept: a duplicate is
 * not valid JSON-RPC, and the host never sends one.
 */
class Scanner {
  private pos = 0;
  constructor(private readonly s: string) {}

  /** The fields of the top-level value, or undefined when it is not an object. */
  topObject(): Fields | undefined {
    this.ws();
    return this.s[this.pos] === "{" ? this.object(false) : undefined;
  }

  /** The fields of each member of the top-level array (undefined for non-objects). */
  topArray(): Array<Fields | undefined> {
    const out: Array<Fields | undefined> = [];
    this.ws();
    this.pos++; // [
    for (;;) {
      this.ws();
      if (this.s[this.pos] === "]") return out;
      if (this.s[this.pos] === "{") out.push(this.object(true));
      else {
        out.push(undefined);
        this.skipValue();
      }
      this.ws();
      if (this.s[this.pos] === ",") this.pos++;
    }
  }

  /**
   * The fields of the object at pos. With toEnd, pos ends past the object
   * (a batch member, others follow); without, the scan may stop at the id.
   */
  private object(toEnd: boolean): Fields {
    const f: Fields = {};
    this.pos++; // {
    for (;;) {
      this.ws();
      if (this.s[this.pos] === "}") {
        this.pos++;
        return f;
      }
      const start = this.pos;
      this.skipString();
      const rawName = this.s.slice(start, this.pos);
      const name = rawName.includes("\\") ? (JSON.parse(rawName) as string) : rawName.slice(1, -1);
      this.ws();
      this.pos++; // :
      this.ws();
      const valueStart = this.pos;
      this.skipValue();
      if (name === "id") {
        f.id = this.s.slice(valueStart, this.pos);
        if (toEnd) this.skipRest(1);
        return f;
      }
      this.ws();
      if (this.s[this.pos] === ",") this.pos++;
    }
  }

  private ws(): void {
    const s = this.s;
    while (this.pos < s.length) {
      const c = s.charCodeAt(this.pos);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return;
      this.pos++;
    }
  }

  /** Moves past the string starting at pos. */
  private skipString(): void {
    const s = this.s;
    let i = this.pos + 1;
    for (;;) {
      const q = s.indexOf('"', i);
      let slashes = 0;
      for (let j = q - 1; s.charCodeAt(j) === 0x5c; j--) slashes++;
      if (slashes % 2 === 0) {
        this.pos = q + 1;
        return;
      }
      i = q + 1;
    }
  }

  /** Moves past the value starting at pos. */
  private skipValue(): void {
    const c = this.s[this.pos];
    if (c === '"') return this.skipString();
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
  private skipRest(depth: number): void {
    for (;;) {
      STRUCTURAL.lastIndex = this.pos;
      const m = STRUCTURAL.exec(this.s)!;
      this.pos = m.index;
      const ch = m[0];
      if (ch === '"') {
        this.skipString();
        continue;
      }
      this.pos++;
      depth += ch === "{" || ch === "[" ? 1 : -1;
      if (depth === 0) return;
    }
  }
}

/** JSON text of v; undefined (and functions) read as null, as a missing result. */
export function toJSON(v: unknown): string {
  const text = JSON.stringify(v);
  return text === undefined ? "null" : text;
}

export function encodeResult(id: string, result: unknown): string {
  return `{"jsonrpc":"2.0","id":${id},"result":${toJSON(result)}}`;
}

export function encodeError(id: string, e: WireError): string {
  const err: WireError = { code: e.code, message: e.message };
  if (e.data !== undefined) err.data = e.data;
  return `{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify(err)}}`;
}

export function encodeRequest(id: string, method: string, params: unknown): string {
  const p = params === undefined ? "" : `,"params":${toJSON(params)}`;
  return `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)}${p}}`;
}

export function encodeNotification(method: string, params: unknown): string {
  const p = params === undefined ? "" : `,"params":${toJSON(params)}`;
  return `{"jsonrpc":"2.0","method":${JSON.stringify(method)}${p}}`;
}
