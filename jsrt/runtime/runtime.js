// The Node surface of Escouade's JS runtime, run by QuickJS before the
// bundle. The engine's C side evaluates this script once; its value is a
// function given the engine's natives and the global object, returning the
// hooks the C side calls: start, deliver (stdin lines), step (one task),
// moduleSource (node:fs, node:readline).
//
// The runtime's own requests to the host (timer/*, net/fetch) carry string
// ids "escouade-rt:<n>"; their answers, and timer/fired for its own timers,
// are taken off stdin before the plugin sees it. Everything else reaches the
// plugin's stdin readers untouched.
(function (native, g) {
  'use strict';

  const RT = 'escouade-rt:';
  const MAX_TIMERS = 64;
  const MIN_TIMER_MS = 10;

  // ---- tasks: each stdin line and each timer callback is one; the C side
  // runs the promise jobs after each ----
  const tasks = [];
  function enqueue(fn) { tasks.push(fn); }
  function step() {
    const t = tasks.shift();
    if (t === undefined) return false;
    t();
    return true;
  }

  function write(fd, s) { native.write(fd, s); }

  // ---- EventEmitter ----
  class EventEmitter {
    constructor() { this._events = new Map(); }
    on(name, fn) {
      if (typeof fn !== 'function') throw new TypeError('The "listener" argument must be of type function');
      let l = this._events.get(name);
      if (!l) this._events.set(name, (l = []));
      l.push(fn);
      this._listening(name);
      return this;
    }
    addListener(name, fn) { return this.on(name, fn); }
    prependListener(name, fn) { this.on(name, fn); const l = this._events.get(name); l.unshift(l.pop()); return this; }
    once(name, fn) {
      const w = (...a) => { this.off(name, w); fn.apply(this, a); };
      w.listener = fn;
      return this.on(name, w);
    }
    off(name, fn) {
      const l = this._events.get(name);
      if (!l) return this;
      const i = l.findIndex((x) => x === fn || x.listener === fn);
      if (i >= 0) l.splice(i, 1);
      if (l.length === 0) this._events.delete(name);
      return this;
    }
    removeListener(name, fn) { return this.off(name, fn); }
    removeAllListeners(name) { if (name === undefined) this._events.clear(); else this._events.delete(name); return this; }
    listenerCount(name) { const l = this._events.get(name); return l ? l.length : 0; }
    listeners(name) { return (this._events.get(name) || []).map((x) => x.listener || x); }
    eventNames() { return [...this._events.keys()]; }
    setMaxListeners() { return this; }
    emit(name, ...args) {
      const l = this._events.get(name);
      if (!l || l.length === 0) {
        if (name === 'error') throw args[0] instanceof Error ? args[0] : new Error('Unhandled error: ' + String(args[0]));
        return false;
      }
      if (l.length === 1) l[0].apply(this, args); // the common case, without a copy
      else for (const fn of l.slice()) fn.apply(this, args);
      return true;
    }
    _listening() {}
  }

  // ---- UTF-8, base64 ----
  function utf8Encode(str) {
    str = String(str);
    const out = new Uint8Array(str.length * 3);
    let j = 0;
    for (let i = 0; i < str.length; i++) {
      let c = str.charCodeAt(i);
      if (c < 0x80) { out[j++] = c; continue; }
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < str.length) {
        const d = str.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          i++;
          out[j++] = 0xf0 | (c >> 18); out[j++] = 0x80 | ((c >> 12) & 63);
          out[j++] = 0x80 | ((c >> 6) & 63); out[j++] = 0x80 | (c & 63);
          continue;
        }
      }
      if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
      if (c < 0x800) { out[j++] = 0xc0 | (c >> 6); out[j++] = 0x80 | (c & 63); continue; }
      out[j++] = 0xe0 | (c >> 12); out[j++] = 0x80 | ((c >> 6) & 63); out[j++] = 0x80 | (c & 63);
    }
    return out.slice(0, j);
  }

  function utf8Decode(b, fatal) {
    let s = '';
    const parts = [];
    let i = 0;
    const n = b.length;
    const bad = () => { if (fatal) throw new TypeError('The encoded data was not valid for encoding utf-8'); return 0xfffd; };
    let codes = [];
    while (i < n) {
      const c = b[i];
      let cp;
      if (c < 0x80) { cp = c; i++; } else {
        let need, min;
        if (c >= 0xc2 && c <= 0xdf) { need = 1; cp = c & 0x1f; min = 0x80; }
        else if (c >= 0xe0 && c <= 0xef) { need = 2; cp = c & 0x0f; min = 0x800; }
        else if (c >= 0xf0 && c <= 0xf4) { need = 3; cp = c & 0x07; min = 0x10000; }
        else { cp = bad(); i++; need = -1; }
        if (need > 0) {
          let k = 1;
          for (; k <= need; k++) {
            const d = b[i + k];
            if (i + k >= n || (d & 0xc0) !== 0x80) break;
            cp = (cp << 6) | (d & 0x3f);
          }
          if (k <= need || cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) { cp = bad(); i += Math.max(1, k === 1 ? 1 : k); }
          else i += need + 1;
        }
      }
      if (cp > 0xffff) { cp -= 0x10000; codes.push(0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff)); }
      else codes.push(cp);
      if (codes.length >= 8192) { parts.push(String.fromCharCode.apply(null, codes)); codes = []; }
    }
    parts.push(String.fromCharCode.apply(null, codes));
    s = parts.join('');
    return s;
  }

  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const B64R = new Int16Array(256).fill(-1);
  for (let i = 0; i < 64; i++) B64R[B64.charCodeAt(i)] = i;
  B64R[45] = 62; B64R[95] = 63; // base64url
  function b64Encode(b) {
    let s = '';
    let i = 0;
    for (; i + 2 < b.length; i += 3) {
      const v = (b[i] << 16) | (b[i + 1] << 8) | b[i + 2];
      s += B64[v >> 18] + B64[(v >> 12) & 63] + B64[(v >> 6) & 63] + B64[v & 63];
    }
    if (i < b.length) {
      const v = (b[i] << 16) | ((i + 1 < b.length ? b[i + 1] : 0) << 8);
      s += B64[v >> 18] + B64[(v >> 12) & 63] + (i + 1 < b.length ? B64[(v >> 6) & 63] : '=') + '=';
    }
    return s;
  }
  function b64Decode(s, strict) {
    s = String(s).replace(/[\t\n\f\r ]/g, '');
    if (strict && (s.length % 4 === 1 || /[^A-Za-z0-9+/=]/.test(s) || /=[^=]/.test(s))) {
      throw new DOMException('The string to be decoded is not correctly encoded.', 'InvalidCharacterError');
    }
    s = s.replace(/=+$/, '');
    const out = new Uint8Array(Math.floor((s.length * 3) / 4));
    let j = 0, acc = 0, bits = 0;
    for (let i = 0; i < s.length; i++) {
      const v = B64R[s.charCodeAt(i) & 255];
      if (v < 0) continue;
      acc = (acc << 6) | v; bits += 6;
      if (bits >= 8) { bits -= 8; out[j++] = (acc >> bits) & 255; }
    }
    return out.slice(0, j);
  }

  function toBytes(x) {
    if (x instanceof Uint8Array) return x;
    if (x instanceof ArrayBuffer) return new Uint8Array(x);
    if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
    return null;
  }

  // ---- DOMException, TextEncoder, TextDecoder ----
  class DOMException extends Error {
    constructor(message = '', name = 'Error') { super(message); this.name = name; }
  }

  class TextEncoder {
    get encoding() { return 'utf-8'; }
    encode(s = '') { return utf8Encode(s); }
    encodeInto(s, dest) {
      const b = utf8Encode(s);
      const n = Math.min(b.length, dest.length);
      let cut = n;
      if (n < b.length) while (cut > 0 && (b[cut] & 0xc0) === 0x80) cut--;
      dest.set(b.subarray(0, cut));
      return { read: utf8Decode(b.subarray(0, cut)).length, written: cut };
    }
  }

  class TextDecoder {
    constructor(label = 'utf-8', opts = {}) {
      const l = String(label).trim().toLowerCase();
      if (l !== 'utf-8' && l !== 'utf8' && l !== 'unicode-1-1-utf-8') throw new RangeError('The "' + label + '" encoding is not supported');
      this.fatal = !!opts.fatal;
      this.ignoreBOM = !!opts.ignoreBOM;
      this._rest = null;
    }
    get encoding() { return 'utf-8'; }
    decode(input, opts = {}) {
      let b = input === undefined ? new Uint8Array(0) : toBytes(input);
      if (!b) throw new TypeError('The "input" argument must be an ArrayBuffer or ArrayBufferView');
      if (this._rest) { const m = new Uint8Array(this._rest.length + b.length); m.set(this._rest); m.set(b, this._rest.length); b = m; this._rest = null; }
      if (opts.stream) {
        let cut = b.length, k = 0;
        while (cut > 0 && k < 3 && (b[cut - 1] & 0xc0) === 0x80) { cut--; k++; }
        if (cut > 0 && b[cut - 1] >= 0xc0) {
          const lead = b[cut - 1];
          const need = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : 1;
          if (k < need) { this._rest = b.slice(cut - 1); b = b.subarray(0, cut - 1); }
        }
      }
      let s = utf8Decode(b, this.fatal);
      if (!this.ignoreBOM && s.charCodeAt(0) === 0xfeff) s = s.slice(1);
      return s;
    }
  }

  // ---- Buffer (enough for readFileSync without an encoding) ----
  class Buffer extends Uint8Array {
    static from(x, enc) {
      if (typeof x === 'string') {
        const e = String(enc || 'utf8').toLowerCase();
        if (e === 'base64' || e === 'base64url') return Buffer._wrap(b64Decode(x));
        if (e === 'hex') { const o = new Buffer(x.length >> 1); for (let i = 0; i < o.length; i++) o[i] = parseInt(x.substr(2 * i, 2), 16); return o; }
        if (e === 'latin1' || e === 'binary' || e === 'ascii') { const o = new Buffer(x.length); for (let i = 0; i < x.length; i++) o[i] = x.charCodeAt(i) & 255; return o; }
        return Buffer._wrap(utf8Encode(x));
      }
      const b = toBytes(x);
      if (b) return Buffer._wrap(b.slice());
      if (Array.isArray(x)) return Buffer._wrap(Uint8Array.from(x));
      throw new TypeError('The first argument must be a string, Buffer, ArrayBuffer, Array, or array-like object');
    }
    static _wrap(u8) { return new Buffer(u8.buffer, u8.byteOffset, u8.byteLength); }
    static alloc(n, fill) { const b = new Buffer(n); if (fill !== undefined) b.fill(typeof fill === 'string' ? fill.charCodeAt(0) : fill); return b; }
    static isBuffer(x) { return x instanceof Buffer; }
    static byteLength(s, enc) { return typeof s === 'string' ? Buffer.from(s, enc).length : s.byteLength; }
    static concat(list, total) {
      if (total === undefined) total = list.reduce((n, b) => n + b.length, 0);
      const o = new Buffer(total);
      let off = 0;
      for (const b of list) { o.set(b.subarray(0, total - off), off); off += b.length; if (off >= total) break; }
      return o;
    }
    toString(enc = 'utf8', start = 0, end = this.length) {
      const b = this.subarray(start, end);
      const e = String(enc).toLowerCase();
      if (e === 'base64') return b64Encode(b);
      if (e === 'base64url') return b64Encode(b).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
      if (e === 'hex') { let s = ''; for (const x of b) s += (x < 16 ? '0' : '') + x.toString(16); return s; }
      if (e === 'latin1' || e === 'binary' || e === 'ascii') { let s = ''; for (const x of b) s += String.fromCharCode(x); return s; }
      return utf8Decode(b);
    }
    equals(o) { if (this.length !== o.length) return false; for (let i = 0; i < this.length; i++) if (this[i] !== o[i]) return false; return true; }
    toJSON() { return { type: 'Buffer', data: Array.from(this) }; }
  }

  // ---- inspect and console (stderr only: stdout is the protocol's) ----
  function inspect(v, depth = 2, seen = new Set()) {
    switch (typeof v) {
      case 'string': return seen.size ? "'" + v.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n') + "'" : v;
      case 'bigint': return v + 'n';
      case 'symbol': return v.toString();
      case 'function': return '[Function: ' + (v.name || '(anonymous)') + ']';
      case 'object': break;
      default: return String(v);
    }
    if (v === null) return 'null';
    if (v instanceof Error) return v.stack ? String(v) + '\n' + v.stack.replace(/\n$/, '') : String(v);
    if (seen.has(v)) return '[Circular]';
    if (depth < 0) return Array.isArray(v) ? '[Array]' : '[Object]';
    seen.add(v);
    try {
      const sub = (x) => inspect(x, depth - 1, seen);
      if (Array.isArray(v)) return '[ ' + v.map(sub).join(', ') + ' ]';
      if (v instanceof Map) return 'Map(' + v.size + ') { ' + [...v].map(([k, x]) => sub(k) + ' => ' + sub(x)).join(', ') + ' }';
      if (v instanceof Set) return 'Set(' + v.size + ') { ' + [...v].map(sub).join(', ') + ' }';
      if (v instanceof Date) return isNaN(v) ? 'Invalid Date' : v.toISOString();
      if (v instanceof RegExp) return String(v);
      if (ArrayBuffer.isView(v)) return v.constructor.name + '(' + v.length + ') [ ' + Array.from(v).join(', ') + ' ]';
      if (v instanceof URL) return 'URL ' + JSON.stringify(v.href);
      const keys = Object.keys(v);
      if (keys.length === 0) return '{}';
      const name = v.constructor && v.constructor !== Object && v.constructor.name ? v.constructor.name + ' ' : '';
      return name + '{ ' + keys.map((k) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)) + ': ' + sub(v[k])).join(', ') + ' }';
    } finally {
      seen.delete(v);
    }
  }

  function format(...args) {
    let out = '';
    let i = 0;
    if (typeof args[0] === 'string' && args[0].includes('%')) {
      const f = args[0];
      i = 1;
      out = f.replace(/%[sdifjoOc%]/g, (m) => {
        if (m === '%%') return '%';
        if (i >= args.length) return m;
        const a = args[i++];
        switch (m) {
          case '%s': return typeof a === 'string' ? a : inspect(a, 1);
          case '%d': case '%i': return typeof a === 'bigint' ? a + 'n' : String(m === '%i' ? parseInt(a) : Number(a));
          case '%f': return String(parseFloat(a));
          case '%j': try { return JSON.stringify(a); } catch { return '[Circular]'; }
          case '%c': return '';
          default: return inspect(a, 4);
        }
      });
    } else if (args.length) {
      out = inspect(args[0]);
      i = 1;
    }
    for (; i < args.length; i++) out += ' ' + inspect(args[i]);
    return out;
  }

  const counts = new Map();
  const times = new Map();
  let indent = '';
  function logLine(...a) { write(2, (indent ? format(...a).replace(/^/gm, indent) : format(...a)) + '\n'); }
  const console = {
    log: logLine, info: logLine, debug: logLine, warn: logLine, error: logLine, trace: (...a) => logLine('Trace:', ...a),
    dir: (v) => logLine(inspect(v)),
    table: (v) => logLine(v),
    assert: (ok, ...a) => { if (!ok) logLine('Assertion failed' + (a.length ? ':' : ''), ...a); },
    count: (l = 'default') => { const n = (counts.get(l) || 0) + 1; counts.set(l, n); logLine(l + ': ' + n); },
    countReset: (l = 'default') => counts.delete(l),
    time: (l = 'default') => times.set(l, native.now()),
    timeEnd: (l = 'default') => { const t = times.get(l); times.delete(l); if (t !== undefined) logLine(l + ': ' + (native.now() - t).toFixed(3) + 'ms'); },
    timeLog: (l = 'default', ...a) => { const t = times.get(l); if (t !== undefined) logLine(l + ': ' + (native.now() - t).toFixed(3) + 'ms', ...a); },
    group: (...a) => { if (a.length) logLine(...a); indent += '  '; },
    groupEnd: () => { indent = indent.slice(2); },
  };

  // ---- the runtime's own requests to the host ----
  let nextRequest = 1;
  const pending = new Map();
  // request sends a call; done(error, result) runs in the task of the
  // answer's line, before the lines after it are looked at.
  function request(method, params, done) {
    const id = RT + nextRequest++;
    write(1, JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    pending.set(id, done || (() => {}));
  }

  // ours takes a line off stdin when it is an answer to the runtime, a
  // timer/fired for one of its timers, or a net/chunk or net/end of one of
  // its streams (fetch's bodies past what net/fetch carries).
  function ours(line) {
    const mayAnswer = line.includes('"' + RT);
    const mayFire = !mayAnswer && line.includes('"timer/fired"');
    const mayStream = !mayAnswer && !mayFire && streams.size > 0 && (line.includes('"net/chunk"') || line.includes('"net/end"'));
    if (mayStream) return streamLine(line);
    if (!mayAnswer && !mayFire) return false;
    let m;
    try { m = JSON.parse(line); } catch { return false; }
    if (m === null || typeof m !== 'object' || Array.isArray(m)) return false;
    if (mayAnswer) {
      if (typeof m.id !== 'string' || !m.id.startsWith(RT) || 'method' in m) return false;
      const done = pending.get(m.id);
      pending.delete(m.id);
      if (done) {
        if (m.error) done(m.error);
        else done(null, m.result);
      }
      return true;
    }
    return m.method === 'timer/fired' && !('id' in m) && m.params && fired(m.params.timer);
  }

  // ---- timers on the host's timer/* ----
  let nextTimer = 1;
  const timers = new Map(); // local id → Timeout
  const byHost = new Map(); // host timer id → Timeout

  class Timeout {
    constructor(cb, ms, args, repeat) {
      this._id = nextTimer++;
      this._cb = cb; this._args = args; this._repeat = repeat;
      ms = Number(ms);
      this._ms = ms >= MIN_TIMER_MS && ms <= 2147483647 ? Math.floor(ms) : ms > 2147483647 || !(ms >= 0) ? 1 : MIN_TIMER_MS;
      if (this._ms < MIN_TIMER_MS) this._ms = MIN_TIMER_MS;
      this._host = null; this._cleared = false;
    }
    ref() { return this; }
    unref() { return this; }
    hasRef() { return true; }
    refresh() { if (!this._cleared) { disarm(this); arm(this); } return this; }
    close() { clear(this); return this; }
    [Symbol.toPrimitive]() { return this._id; }
  }

  function arm(t) {
    if (!timers.has(t._id) && timers.size >= MAX_TIMERS) {
      throw new RangeError('at most ' + MAX_TIMERS + ' timers can be pending at once in Escouade');
    }
    timers.set(t._id, t);
    const gen = (t._gen = (t._gen || 0) + 1);
    request('timer/set', { ms: t._ms }, (e, r) => {
      if (e) {
        timers.delete(t._id);
        write(2, 'escouade: a timer was refused: ' + (e && e.message) + '\n');
        return;
      }
      const h = r && r.timer;
      if (t._cleared || t._gen !== gen) { if (h != null) request('timer/clear', { timer: h }); return; }
      t._host = h;
      byHost.set(h, t);
    });
  }
  function disarm(t) {
    if (t._host != null) {
      byHost.delete(t._host);
      request('timer/clear', { timer: t._host });
      t._host = null;
    }
    t._gen = (t._gen || 0) + 1;
  }
  function clear(t) {
    if (typeof t === 'number') t = timers.get(t);
    else if (typeof t === 'string') t = timers.get(Number(t));
    if (!(t instanceof Timeout) || t._cleared) return;
    t._cleared = true;
    timers.delete(t._id);
    disarm(t);
  }
  function fired(h) {
    const t = byHost.get(h);
    if (!t) return false;
    byHost.delete(h);
    t._host = null;
    if (t._cleared) return true;
    if (t._repeat) arm(t);
    else timers.delete(t._id);
    t._cb.apply(undefined, t._args);
    return true;
  }
  function setTimer(repeat) {
    return (cb, ms, ...args) => {
      if (typeof cb !== 'function') throw new TypeError('The "callback" argument must be of type function');
      const t = new Timeout(cb, ms, args, repeat);
      arm(t);
      return t;
    };
  }
  function setImmediate(cb, ...args) {
    const t = { _cleared: false, ref() { return this; }, unref() { return this; }, hasRef() { return true; } };
    enqueue(() => { if (!t._cleared) cb.apply(undefined, args); });
    return t;
  }
  function clearImmediate(t) { if (t) t._cleared = true; }

  function queueMicrotask(fn) {
    if (typeof fn !== 'function') throw new TypeError('The "callback" argument must be of type function');
    Promise.resolve().then(() => fn());
  }

  // ---- stdin: lines for the plugin ----
  class Stdin extends EventEmitter {
    constructor() { super(); this._held = []; this.isTTY = false; this.fd = 0; this.readable = true; }
    setEncoding() { return this; }
    resume() { return this; }
    pause() { return this; }
    unref() { return this; }
    ref() { return this; }
    _push(chunk) {
      if (this.listenerCount('data') === 0) { this._held.push(chunk); return; }
      this.emit('data', chunk);
    }
    _listening(name) {
      if (name !== 'data' || this._held.length === 0) return;
      const held = this._held;
      this._held = [];
      for (const c of held) enqueue(() => this.emit('data', c));
    }
  }
  const stdin = new Stdin();

  function deliver(text) {
    let from = 0;
    for (;;) {
      const nl = text.indexOf('\n', from);
      if (nl < 0) break;
      const line = text.slice(from, nl);
      from = nl + 1;
      // One task per line, in order: the promise jobs a line starts run
      // before the next line is looked at, as under Node.
      enqueue(() => { if (!ours(line)) stdin._push(line + '\n'); });
    }
  }

  // ---- node:readline ----
  class Interface extends EventEmitter {
    constructor(input, output) {
      super();
      this.input = input;
      this.output = output;
      this.terminal = false;
      this.closed = false;
      this._rest = '';
      this._held = [];
      this._waiting = [];
      this._iterating = false;
      this._paused = false;
      // process.stdin gives one whole line per chunk: no split needed.
      this._onData = input === stdin
        ? (chunk) => this._line(chunk.charCodeAt(chunk.length - 2) === 13 ? chunk.slice(0, -2) : chunk.slice(0, -1))
        : (chunk) => this._data(typeof chunk === 'string' ? chunk : utf8Decode(toBytes(chunk) || new Uint8Array(0)));
      if (input && typeof input.on === 'function') input.on('data', this._onData);
    }
    _data(s) {
      s = this._rest + s;
      let from = 0;
      for (;;) {
        const nl = s.indexOf('\n', from);
        if (nl < 0) break;
        let line = s.slice(from, nl);
        if (line.endsWith('\r')) line = line.slice(0, -1);
        from = nl + 1;
        this._line(line);
      }
      this._rest = s.slice(from);
    }
    _line(line) {
      if (this.closed) return;
      if (this._waiting.length) { this._waiting.shift().resolve({ value: line, done: false }); return; }
      if (this._iterating || this.listenerCount('line') === 0 || this._paused) { this._held.push(line); return; }
      this.emit('line', line);
    }
    _listening(name) {
      if (name !== 'line' || this._iterating) return;
      const held = this._held;
      this._held = [];
      for (const l of held) enqueue(() => this._line(l));
    }
    pause() { this._paused = true; this.emit('pause'); return this; }
    resume() {
      this._paused = false;
      this.emit('resume');
      const held = this._held;
      this._held = [];
      for (const l of held) enqueue(() => this._line(l));
      return this;
    }
    write(s) { if (this.output && typeof this.output.write === 'function') this.output.write(s); }
    setPrompt(p) { this._prompt = p; }
    getPrompt() { return this._prompt || ''; }
    prompt() { if (this._prompt) this.write(this._prompt); }
    question(q, opts, cb) {
      if (typeof opts === 'function') cb = opts;
      this.write(q);
      const w = (l) => { this.off('line', w); cb(l); };
      this.prependListener('line', w);
    }
    close() {
      if (this.closed) return;
      this.closed = true;
      if (this.input && typeof this.input.off === 'function') this.input.off('data', this._onData);
      for (const w of this._waiting.splice(0)) w.resolve({ value: undefined, done: true });
      this.emit('close');
    }
    [Symbol.asyncIterator]() {
      this._iterating = true;
      const it = {
        next: () => {
          if (this._held.length) return Promise.resolve({ value: this._held.shift(), done: false });
          if (this.closed) return Promise.resolve({ value: undefined, done: true });
          return new Promise((resolve, reject) => this._waiting.push({ resolve, reject }));
        },
        return: () => { this.close(); return Promise.resolve({ value: undefined, done: true }); },
        [Symbol.asyncIterator]() { return it; },
      };
      return it;
    }
  }
  function createInterface(input, output) {
    if (input && typeof input === 'object' && !(input instanceof EventEmitter) && 'input' in input) ({ input, output } = input);
    return new Interface(input || stdin, output);
  }
  const readline = {
    createInterface, Interface,
    clearLine: () => true, clearScreenDown: () => true, cursorTo: () => true, moveCursor: () => true,
    emitKeypressEvents: () => {},
  };

  // ---- process ----
  class Output extends EventEmitter {
    constructor(fd) { super(); this.fd = fd; this.isTTY = false; this.writable = true; }
    write(chunk, enc, cb) {
      if (typeof enc === 'function') cb = enc;
      const b = typeof chunk === 'string' ? null : toBytes(chunk);
      if (typeof chunk !== 'string' && !b) throw new TypeError('The "chunk" argument must be of type string or an instance of Buffer or Uint8Array');
      write(this.fd, b ? utf8Decode(b) : chunk);
      if (typeof cb === 'function') enqueue(() => cb(null));
      return true;
    }
    end(chunk, enc, cb) { if (chunk != null && typeof chunk !== 'function') this.write(chunk, enc, cb); return this; }
    cork() {}
    uncork() {}
  }
  const started = native.now();
  function hrtime(prev) {
    const ns = BigInt(Math.round(native.now() * 1e6));
    let s = Number(ns / 1000000000n), n = Number(ns % 1000000000n);
    if (prev) { s -= prev[0]; n -= prev[1]; if (n < 0) { s--; n += 1e9; } }
    return [s, n];
  }
  hrtime.bigint = () => BigInt(Math.round(native.now() * 1e6));
  const process = new EventEmitter();
  Object.assign(process, {
    stdin, stdout: new Output(1), stderr: new Output(2),
    argv: ['escouade-js', '/bundle/plugin.mjs'], argv0: 'escouade-js', execArgv: [],
    env: {}, platform: 'wasi', arch: 'wasm32', pid: 1, ppid: 0, title: 'escouade-js',
    version: 'v0.0.0', versions: { escouade: '1', quickjs: '2025-04-26' }, release: { name: 'escouade-js' },
    exitCode: undefined,
    exit(code) { native.exit(code === undefined ? (process.exitCode | 0) : code | 0); },
    cwd() { return '/plugin'; },
    chdir() { throw new Error('process.chdir is not available in Escouade\'s JS runtime'); },
    nextTick(fn, ...args) { Promise.resolve().then(() => fn(...args)); },
    hrtime,
    uptime() { return (native.now() - started) / 1000; },
    memoryUsage() { return { rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 }; },
    emitWarning(w) { write(2, '(escouade-js) Warning: ' + (w && w.message ? w.message : String(w)) + '\n'); },
  });

  // ---- node:fs (read-only: the root JSON files in /plugin) ----
  const ERRNO = { 2: ['EACCES', 'permission denied'], 31: ['EISDIR', 'illegal operation on a directory'], 44: ['ENOENT', 'no such file or directory'], 54: ['ENOTDIR', 'not a directory'], 63: ['EPERM', 'operation not permitted'], 76: ['ENOENT', 'no such file or directory'] };
  function fsPath(p) {
    if (p instanceof URL) p = p.href;
    else if (p && typeof p === 'object' && typeof p.href === 'string') p = p.href;
    else if (toBytes(p)) p = utf8Decode(toBytes(p));
    if (typeof p !== 'string') throw new TypeError('The "path" argument must be of type string or an instance of Buffer or URL');
    if (p.startsWith('file:')) {
      const u = new URL(p);
      if (u.hostname !== '' && u.hostname !== 'localhost') throw new TypeError('File URL host must be "localhost" or empty');
      p = decodeURIComponent(u.pathname);
    }
    return normalizePath(p.startsWith('/') ? p : '/plugin/' + p);
  }
  function normalizePath(p) {
    const out = [];
    for (const s of p.split('/')) {
      if (s === '' || s === '.') continue;
      if (s === '..') out.pop(); else out.push(s);
    }
    return '/' + out.join('/');
  }
  function fsError(n, syscall, path) {
    const [code, text] = ERRNO[n] || ['EIO', 'i/o error'];
    const e = new Error(code + ': ' + text + ', ' + syscall + " '" + path + "'");
    e.errno = -n; e.code = code; e.syscall = syscall; e.path = path;
    return e;
  }
  function readFileSync(p, opts) {
    const path = fsPath(p);
    const enc = typeof opts === 'string' ? opts : opts && opts.encoding;
    const r = native.readFile(path);
    if (r.charCodeAt(0) === 0 && /^\0\d+$/.test(r)) throw fsError(Number(r.slice(1)), 'open', path);
    if (enc == null) return Buffer.from(r);
    const e = String(enc).toLowerCase();
    return e === 'utf8' || e === 'utf-8' ? r : Buffer.from(r).toString(e);
  }
  function existsSync(p) {
    try { readFileSync(p); return true; } catch { return false; }
  }
  function unavailable(name) {
    return () => { const e = new Error('fs.' + name + ' is not available in Escouade\'s JS runtime: a plugin reads its root JSON files with readFileSync, other files with files/read or fs/*'); e.code = 'ENOSYS'; throw e; };
  }
  const fs = {
    readFileSync, existsSync,
    promises: { readFile: async (p, o) => readFileSync(p, o) },
    readFile(p, o, cb) { if (typeof o === 'function') cb = o; let v, err = null; try { v = readFileSync(p, typeof o === 'function' ? undefined : o); } catch (e) { err = e; } enqueue(() => cb(err, v)); },
    constants: { F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1 },
  };
  for (const n of ['writeFileSync', 'appendFileSync', 'mkdirSync', 'readdirSync', 'statSync', 'lstatSync', 'unlinkSync', 'rmSync', 'renameSync', 'openSync', 'createReadStream', 'createWriteStream', 'writeFile', 'watch']) fs[n] = unavailable(n);

  // ---- URL, URLSearchParams ----
  const SPECIAL = { 'http:': '80', 'https:': '443', 'ws:': '80', 'wss:': '443', 'ftp:': '21', 'file:': '' };
  function pct(s, keep) {
    let o = '';
    for (const ch of s) {
      const c = ch.codePointAt(0);
      if (c > 0x20 && c < 0x7f && !keep.includes(ch)) o += ch;
      else for (const b of utf8Encode(ch)) o += '%' + (b < 16 ? '0' : '') + b.toString(16).toUpperCase();
    }
    return o;
  }
  const PATH_ESC = ' "#<>?`{}', QUERY_ESC = ' "#<>', SPECIAL_QUERY_ESC = ' "#<>\'', FRAG_ESC = ' "<>`', USER_ESC = ' "#<>?`{}/:;=@[\\]^|';
  function removeDots(path) {
    const segs = path.split('/');
    const out = [];
    for (let i = 1; i < segs.length; i++) {
      const s = segs[i], last = i === segs.length - 1;
      const low = s.toLowerCase();
      if (s === '..' || low === '.%2e' || low === '%2e.' || low === '%2e%2e') { out.pop(); if (last) out.push(''); }
      else if (s === '.' || low === '%2e') { if (last) out.push(''); }
      else out.push(s);
    }
    return '/' + out.join('/');
  }
  function parseURL(input, base) {
    let s = String(input).replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '');
    const r = { protocol: '', username: '', password: '', hostname: '', port: '', pathname: '', search: '', hash: '', opaque: false };
    const hashAt = s.indexOf('#');
    if (hashAt >= 0) { r.hash = s.slice(hashAt + 1); s = s.slice(0, hashAt); r.hasHash = true; }
    const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(s);
    let rest;
    if (m) {
      r.protocol = m[1].toLowerCase() + ':';
      rest = s.slice(m[0].length);
      const special = r.protocol in SPECIAL;
      if (special) rest = rest.replace(/\\/g, '/');
      if (special && base && base.protocol === r.protocol && !rest.startsWith('/')) {
        return relative(rest, base, r);
      }
      if (special || rest.startsWith('//')) {
        if (r.protocol === 'file:') {
          if (rest.startsWith('//')) { rest = rest.slice(2); const e = rest.search(/[/?]/); authority(e < 0 ? rest : rest.slice(0, e), r, true); rest = e < 0 ? '' : rest.slice(e); }
        } else {
          rest = special ? rest.replace(/^\/*/, '') : rest.slice(2);
          const e = rest.search(special ? /[/?]/ : /[/?]/);
          authority(e < 0 ? rest : rest.slice(0, e), r, special);
          rest = e < 0 ? '' : rest.slice(e);
          if (special && r.hostname === '') throw new TypeError('Invalid URL');
        }
        pathAndQuery(rest, r, special);
      } else if (rest.startsWith('/')) {
        pathAndQuery(rest, r, false);
      } else {
        r.opaque = true;
        const q = rest.indexOf('?');
        r.pathname = q < 0 ? rest : rest.slice(0, q);
        if (q >= 0) r.search = pct(rest.slice(q + 1), QUERY_ESC);
        r.pathname = pct(r.pathname, '').replace(/%25/g, '%');
      }
    } else {
      if (!base) throw new TypeError('Invalid URL');
      r.protocol = base.protocol;
      rest = r.protocol in SPECIAL ? s.replace(/\\/g, '/') : s;
      if (base.opaque) { if (rest === '' && r.hasHash) return Object.assign({}, base, { hash: r.hash, hasHash: true }); throw new TypeError('Invalid URL'); }
      return relative(rest, base, r);
    }
    if (r.hasHash) r.hash = pct(r.hash, FRAG_ESC);
    return r;
  }
  function relative(rest, base, r) {
    const special = r.protocol in SPECIAL;
    if (rest.startsWith('//')) return parseURL(r.protocol + rest + (r.hasHash ? '#' + r.hash : ''));
    r.username = base.username; r.password = base.password; r.hostname = base.hostname; r.port = base.port;
    if (rest === '') { r.pathname = base.pathname; r.search = base.search; }
    else if (rest.startsWith('?')) { r.pathname = base.pathname; pathAndQuery(rest, r, special, true); }
    else if (rest.startsWith('/')) pathAndQuery(rest, r, special);
    else {
      const dir = base.pathname.slice(0, base.pathname.lastIndexOf('/') + 1) || '/';
      pathAndQuery(dir + rest, r, special);
    }
    if (r.hasHash) r.hash = pct(r.hash, FRAG_ESC);
    return r;
  }
  function authority(a, r, special) {
    const at = a.lastIndexOf('@');
    if (at >= 0) {
      const ui = a.slice(0, at);
      a = a.slice(at + 1);
      const c = ui.indexOf(':');
      r.username = pct(c < 0 ? ui : ui.slice(0, c), USER_ESC);
      r.password = c < 0 ? '' : pct(ui.slice(c + 1), USER_ESC);
    }
    let host = a, port = '';
    const pm = /:(\d*)$/.exec(a);
    if (pm && !a.endsWith(']') ) { host = a.slice(0, pm.index); port = pm[1]; }
    if (port !== '') {
      const n = Number(port);
      if (n > 65535) throw new TypeError('Invalid URL');
      port = String(n);
      if (SPECIAL[r.protocol] === port) port = '';
    }
    if (special) {
      try { host = decodeURIComponent(host); } catch { throw new TypeError('Invalid URL'); }
      host = host.toLowerCase();
      if (/[\u0000\t\n\r #/:<>?@[\\\]^|%]/.test(host.replace(/^\[[0-9a-f:.]+\]$/, 'ip6'))) throw new TypeError('Invalid URL');
      if (/^[0-9.]+$/.test(host) && !/^(\d{1,3}\.){3}\d{1,3}$/.test(host) && !/^\d+$/.test(host) === false) throw new TypeError('Invalid URL');
    }
    r.hostname = host;
    r.port = port;
  }
  function pathAndQuery(s, r, special, keepPath) {
    const q = s.indexOf('?');
    if (!keepPath) {
      let p = q < 0 ? s : s.slice(0, q);
      if (p === '' && special) p = '/';
      r.pathname = p === '' ? '' : removeDots(pct(p, PATH_ESC).replace(/^(?!\/)/, '/'));
    }
    r.search = q < 0 ? '' : pct(s.slice(q + 1), special ? SPECIAL_QUERY_ESC : QUERY_ESC);
    r.hasSearch = q >= 0;
  }

  class URLSearchParams {
    constructor(init = '') {
      this._list = [];
      this._url = null;
      if (init instanceof URLSearchParams) this._list = init._list.map((p) => p.slice());
      else if (typeof init === 'object' && init !== null) {
        if (typeof init[Symbol.iterator] === 'function') for (const [k, v] of init) this._list.push([String(k), String(v)]);
        else for (const k of Object.keys(init)) this._list.push([k, String(init[k])]);
      } else this._parse(String(init));
    }
    _parse(s) {
      this._list = [];
      if (s.startsWith('?')) s = s.slice(1);
      for (const part of s.split('&')) {
        if (part === '') continue;
        const e = part.indexOf('=');
        const d = (x) => { try { return decodeURIComponent(x.replace(/\+/g, ' ')); } catch { return x; } };
        this._list.push(e < 0 ? [d(part), ''] : [d(part.slice(0, e)), d(part.slice(e + 1))]);
      }
    }
    _update() { if (this._url) { const s = this.toString(); this._url._r.search = s; this._url._r.hasSearch = s !== ''; } }
    get size() { return this._list.length; }
    append(k, v) { this._list.push([String(k), String(v)]); this._update(); }
    delete(k, v) { this._list = this._list.filter(([a, b]) => a !== String(k) || (v !== undefined && b !== String(v))); this._update(); }
    get(k) { const p = this._list.find(([a]) => a === String(k)); return p ? p[1] : null; }
    getAll(k) { return this._list.filter(([a]) => a === String(k)).map(([, b]) => b); }
    has(k, v) { return this._list.some(([a, b]) => a === String(k) && (v === undefined || b === String(v))); }
    set(k, v) {
      k = String(k);
      const i = this._list.findIndex(([a]) => a === k);
      if (i < 0) this._list.push([k, String(v)]);
      else { this._list[i][1] = String(v); this._list = this._list.filter(([a], j) => a !== k || j <= i); }
      this._update();
    }
    sort() { this._list.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)); this._update(); }
    forEach(fn, self) { for (const [k, v] of this._list) fn.call(self, v, k, this); }
    keys() { return this._list.map(([k]) => k)[Symbol.iterator](); }
    values() { return this._list.map(([, v]) => v)[Symbol.iterator](); }
    entries() { return this._list.map((p) => p.slice())[Symbol.iterator](); }
    [Symbol.iterator]() { return this.entries(); }
    toString() {
      const e = (s) => encodeURIComponent(s).replace(/%20/g, '+').replace(/[!'()~]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
      return this._list.map(([k, v]) => e(k) + '=' + e(v)).join('&');
    }
  }

  class URL {
    constructor(url, base) {
      const b = base === undefined ? null : base instanceof URL ? base._r : parseURL(String(base));
      this._r = parseURL(url instanceof URL ? url.href : String(url), b);
      this._sp = null;
    }
    static canParse(u, b) { try { new URL(u, b); return true; } catch { return false; } }
    static parse(u, b) { try { return new URL(u, b); } catch { return null; } }
    get protocol() { return this._r.protocol; }
    set protocol(v) { const p = String(v).replace(/:.*$/, '').toLowerCase() + ':'; if ((p in SPECIAL) === (this._r.protocol in SPECIAL)) { this._r.protocol = p; if (SPECIAL[p] === this._r.port) this._r.port = ''; } }
    get username() { return this._r.username; }
    set username(v) { this._r.username = pct(String(v), USER_ESC); }
    get password() { return this._r.password; }
    set password(v) { this._r.password = pct(String(v), USER_ESC); }
    get hostname() { return this._r.hostname; }
    set hostname(v) { if (!this._r.opaque) this._r.hostname = String(v).toLowerCase(); }
    get port() { return this._r.port; }
    set port(v) { v = String(v); if (v === '') this._r.port = ''; else if (/^\d+/.test(v)) { const n = String(Number(/^\d+/.exec(v)[0])); if (Number(n) <= 65535) this._r.port = SPECIAL[this._r.protocol] === n ? '' : n; } }
    get host() { return this._r.hostname + (this._r.port ? ':' + this._r.port : ''); }
    set host(v) { const [h, p] = String(v).split(':'); this.hostname = h; if (p !== undefined) this.port = p; }
    get origin() { const p = this._r.protocol; return p in SPECIAL && p !== 'file:' ? p + '//' + this.host : 'null'; }
    get pathname() { return this._r.pathname; }
    set pathname(v) { if (!this._r.opaque) { v = String(v); this._r.pathname = removeDots(pct(v.startsWith('/') ? v : '/' + v, PATH_ESC)); } }
    get search() { return this._r.search === '' ? '' : '?' + this._r.search; }
    set search(v) { v = String(v).replace(/^\?/, ''); this._r.search = pct(v, this._r.protocol in SPECIAL ? SPECIAL_QUERY_ESC : QUERY_ESC); this._r.hasSearch = v !== ''; if (this._sp) this._sp._parse(v); }
    get searchParams() {
      if (!this._sp) { this._sp = new URLSearchParams(this._r.search); this._sp._url = this; }
      return this._sp;
    }
    get hash() { return this._r.hash === '' ? '' : '#' + this._r.hash; }
    set hash(v) { v = String(v).replace(/^#/, ''); this._r.hash = pct(v, FRAG_ESC); this._r.hasHash = v !== ''; }
    get href() {
      const r = this._r;
      let s = r.protocol;
      const hasAuthority = !r.opaque && (r.hostname !== '' || r.protocol === 'file:' || r.protocol in SPECIAL);
      if (hasAuthority) {
        s += '//';
        if (r.username || r.password) s += r.username + (r.password ? ':' + r.password : '') + '@';
        s += this.host;
      }
      s += r.pathname;
      if (r.search !== '' || r.hasSearch) s += '?' + r.search;
      if (r.hash !== '' || r.hasHash) s += '#' + r.hash;
      return s;
    }
    set href(v) { this._r = parseURL(String(v)); if (this._sp) this._sp._parse(this._r.search); }
    toString() { return this.href; }
    toJSON() { return this.href; }
  }

  // ---- Headers, Request, Response, fetch over net/fetch ----
  function headerName(n) {
    n = String(n);
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(n)) throw new TypeError('Invalid header name: "' + n + '"');
    return n.toLowerCase();
  }
  function headerValue(v) { return String(v).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, ''); }
  class Headers {
    constructor(init) {
      this._m = new Map();
      if (init instanceof Headers) for (const [k, v] of init) this.append(k, v);
      else if (init && typeof init === 'object') {
        if (typeof init[Symbol.iterator] === 'function') for (const [k, v] of init) this.append(k, v);
        else for (const k of Object.keys(init)) this.append(k, init[k]);
      }
    }
    append(k, v) { k = headerName(k); v = headerValue(v); const o = this._m.get(k); this._m.set(k, o === undefined ? v : o + ', ' + v); }
    set(k, v) { this._m.set(headerName(k), headerValue(v)); }
    get(k) { const v = this._m.get(headerName(k)); return v === undefined ? null : v; }
    has(k) { return this._m.has(headerName(k)); }
    delete(k) { this._m.delete(headerName(k)); }
    getSetCookie() { const v = this._m.get('set-cookie'); return v === undefined ? [] : v.split(', '); }
    forEach(fn, self) { for (const [k, v] of this) fn.call(self, v, k, this); }
    *entries() { for (const k of [...this._m.keys()].sort()) yield [k, this._m.get(k)]; }
    *keys() { for (const [k] of this.entries()) yield k; }
    *values() { for (const [, v] of this.entries()) yield v; }
    [Symbol.iterator]() { return this.entries(); }
  }

  // Body holds a string or bytes and reads it once, as the fetch standard
  // says.
  class Body {
    _initBody(body, headers) {
      this._body = null;
      this.bodyUsed = false;
      if (body == null) return;
      if (typeof body === 'string') { this._body = body; if (!headers.has('content-type')) headers.set('content-type', 'text/plain;charset=UTF-8'); return; }
      if (body instanceof URLSearchParams) { this._body = body.toString(); if (!headers.has('content-type')) headers.set('content-type', 'application/x-www-form-urlencoded;charset=UTF-8'); return; }
      const b = toBytes(body);
      if (b) { this._body = b.slice(); return; }
      if (body instanceof Body) { this._body = body._body; return; }
      this._body = String(body);
      if (!headers.has('content-type')) headers.set('content-type', 'text/plain;charset=UTF-8');
    }
    get body() { return null; }
    _take() {
      if (this.bodyUsed) return Promise.reject(new TypeError('Body is unusable: Body has already been read'));
      this.bodyUsed = true;
      return Promise.resolve(this._body);
    }
    async text() { const b = await this._take(); return b == null ? '' : typeof b === 'string' ? b : utf8Decode(b); }
    async json() { return JSON.parse(await this.text()); }
    async bytes() { const b = await this._take(); return b == null ? new Uint8Array(0) : typeof b === 'string' ? utf8Encode(b) : b.slice(); }
    async arrayBuffer() { return (await this.bytes()).buffer; }
  }

  class Request extends Body {
    constructor(input, init = {}) {
      super();
      const from = input instanceof Request ? input : null;
      this.url = from ? from.url : new URL(String(input)).href;
      this.method = String(init.method || (from ? from.method : 'GET')).toUpperCase();
      this.headers = new Headers(init.headers || (from ? from.headers : undefined));
      this.signal = init.signal || (from ? from.signal : null) || null;
      this.redirect = init.redirect || 'manual';
      const body = init.body !== undefined ? init.body : from ? from._body : null;
      if (body != null && (this.method === 'GET' || this.method === 'HEAD')) throw new TypeError('Request with GET/HEAD method cannot have body.');
      this._initBody(body, this.headers);
    }
    clone() { return new Request(this); }
  }

  const STATUS_TEXT = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content', 301: 'Moved Permanently', 302: 'Found', 304: 'Not Modified', 307: 'Temporary Redirect', 308: 'Permanent Redirect', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 409: 'Conflict', 429: 'Too Many Requests', 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable' };
  class Response extends Body {
    constructor(body = null, init = {}) {
      super();
      this.status = init.status === undefined ? 200 : init.status | 0;
      if (this.status < 200 || this.status > 599) throw new RangeError('init["status"] must be in the range of 200 to 599, inclusive.');
      this.statusText = init.statusText !== undefined ? String(init.statusText) : STATUS_TEXT[this.status] || '';
      this.headers = new Headers(init.headers);
      this.url = init.url || '';
      this.redirected = false;
      this.type = 'default';
      this._initBody(body, this.headers);
    }
    get ok() { return this.status >= 200 && this.status <= 299; }
    clone() {
      if (this.bodyUsed) throw new TypeError('Response.clone: Body has already been consumed.');
      const r = new Response(null, { status: this.status, statusText: this.statusText, headers: this.headers, url: this.url });
      r._body = this._body;
      return r;
    }
    static json(data, init = {}) {
      const h = new Headers(init.headers);
      if (!h.has('content-type')) h.set('content-type', 'application/json');
      return new Response(JSON.stringify(data), Object.assign({}, init, { headers: h }));
    }
    static error() { const r = new Response(null, { status: 200 }); r.status = 0; r.type = 'error'; return r; }
  }

  class AbortSignal extends EventEmitter {
    constructor() { super(); this.aborted = false; this.reason = undefined; this.onabort = null; }
    addEventListener(n, fn) { this.on(n, fn); }
    removeEventListener(n, fn) { this.off(n, fn); }
    throwIfAborted() { if (this.aborted) throw this.reason; }
    _abort(reason) {
      if (this.aborted) return;
      this.aborted = true;
      this.reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
      const ev = { type: 'abort', target: this };
      if (typeof this.onabort === 'function') this.onabort(ev);
      this.emit('abort', ev);
    }
    static abort(reason) { const s = new AbortSignal(); s._abort(reason); return s; }
    static timeout(ms) { const s = new AbortSignal(); g.setTimeout(() => s._abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms); return s; }
  }
  class AbortController {
    constructor() { this.signal = new AbortSignal(); }
    abort(reason) { this.signal._abort(reason); }
  }

  function fetchError(e) {
    const cause = new Error(e && e.message ? e.message : String(e));
    if (e && e.code !== undefined) cause.code = e.code;
    if (e && e.data !== undefined) cause.data = e.data;
    return new TypeError('fetch failed', { cause });
  }
  function fetch(input, init) {
    let req;
    try { req = new Request(input, init); } catch (e) { return Promise.reject(e); }
    if (req.signal && req.signal.aborted) return Promise.reject(req.signal.reason);
    const params = { url: req.url, method: req.method };
    const h = {};
    let any = false;
    for (const [k, v] of req.headers) { h[k] = v; any = true; }
    if (any) params.headers = h;
    if (req._body != null) {
      if (typeof req._body === 'string') params.body = req._body;
      else { params.body = b64Encode(req._body); params.bodyEncoding = 'base64'; }
    }
    return new Promise((resolve, reject) => {
      let stream = null;
      if (req.signal) req.signal.on('abort', () => { if (stream !== null) cancelStream(stream); reject(req.signal.reason); });
      const answer = (r, body) => {
        const res = new Response(null, { status: 200, headers: r.headers, url: req.url });
        res.status = r.status | 0;
        res.statusText = STATUS_TEXT[res.status] || '';
        res._body = body;
        resolve(res);
      };
      request('net/fetch', params, (e, r) => {
        if (e && overFetchBound(e) && !(req.signal && req.signal.aborted)) {
          // A body past what a net/fetch answer carries comes through
          // net/stream, within the plugin's limits.netMaxBytes.
          request('net/stream', params, (e2, head) => {
            if (e2) { reject(fetchError(e2)); return; }
            stream = head.stream;
            streams.set(stream, { chunks: [], end: (err, body) => err ? reject(fetchError({ code: -32004, message: 'The request failed on the way.', data: { reason: err } })) : answer(head, body) });
            if (req.signal && req.signal.aborted) cancelStream(stream);
          });
          return;
        }
        if (e) { reject(fetchError(e)); return; }
        answer(r, r.bodyEncoding === 'base64' ? b64Decode(r.body) : r.body);
      });
    });
  }

  // ---- fetch's streams: net/stream's body gathered from its notifications ----
  const streams = new Map(); // host stream id → {chunks, end(error, bytes)}

  // overFetchBound says whether net/fetch refused a body for its 4 MiB
  // bound, naming net/stream as the way (docs/protocol.md#fetch-bounds).
  function overFetchBound(e) {
    const reason = e && e.data && typeof e.data.reason === 'string' ? e.data.reason : '';
    return e.code === -32004 && reason.includes('read it through net/stream');
  }

  // cancelStream stops a stream whose fetch was aborted; its last
  // notifications are still taken off stdin, and dropped.
  function cancelStream(id) {
    const st = streams.get(id);
    if (st) st.chunks = null;
    request('net/cancel', { stream: id });
  }

  function streamLine(line) {
    let m;
    try { m = JSON.parse(line); } catch { return false; }
    if (m === null || typeof m !== 'object' || 'id' in m || !m.params) return false;
    const st = streams.get(m.params.stream);
    if (st === undefined) return false;
    if (m.method === 'net/chunk') {
      if (st.chunks !== null) st.chunks.push({ data: String(m.params.data), base64: m.params.bodyEncoding === 'base64' });
      return true;
    }
    if (m.method !== 'net/end') return false;
    streams.delete(m.params.stream);
    if (st.chunks === null) return true;
    if (m.params.error) { st.end(String(m.params.error)); return true; }
    decodeChunks(st.chunks, 0, [], (body) => st.end(null, body));
    return true;
  }

  // decodeChunks turns the chunks' text into bytes, at most DECODE_SLICE_MS
  // of it per turn: decoding megabytes in JavaScript takes longer than a
  // turn's 2000 ms, so the rest goes on in the turn of a timer.
  const DECODE_SLICE_MS = 250;
  function decodeChunks(chunks, from, out, done) {
    const began = native.now();
    let i = from;
    for (; i < chunks.length && native.now() - began < DECODE_SLICE_MS; i++) {
      const c = chunks[i];
      out.push(c.base64 ? b64Decode(c.data) : utf8Encode(c.data));
      chunks[i] = null; // its text is no longer needed
    }
    if (i < chunks.length) { g.setTimeout(() => decodeChunks(chunks, i, out, done), 0); return; }
    let size = 0;
    for (const b of out) size += b.length;
    const body = new Uint8Array(size);
    let at = 0;
    for (let k = 0; k < out.length; k++) { body.set(out[k], at); at += out[k].length; out[k] = null; }
    done(body);
  }

  // ---- structuredClone ----
  function structuredClone(v, opts) {
    const seen = new Map();
    const clone = (x) => {
      if (typeof x === 'function' || typeof x === 'symbol') throw new DOMException(String(x) + ' could not be cloned.', 'DataCloneError');
      if (x === null || typeof x !== 'object') return x;
      if (seen.has(x)) return seen.get(x);
      let o;
      if (Array.isArray(x)) { o = new Array(x.length); seen.set(x, o); for (let i = 0; i < x.length; i++) if (i in x) o[i] = clone(x[i]); return o; }
      if (x instanceof Date) o = new Date(x.getTime());
      else if (x instanceof RegExp) o = new RegExp(x.source, x.flags);
      else if (x instanceof Map) { o = new Map(); seen.set(x, o); for (const [k, y] of x) o.set(clone(k), clone(y)); return o; }
      else if (x instanceof Set) { o = new Set(); seen.set(x, o); for (const y of x) o.add(clone(y)); return o; }
      else if (x instanceof ArrayBuffer) o = x.slice(0);
      else if (ArrayBuffer.isView(x)) { const buf = clone(x.buffer); o = x instanceof DataView ? new DataView(buf, x.byteOffset, x.byteLength) : new x.constructor(buf, x.byteOffset, x.length); }
      else if (x instanceof Error) { o = new (g[x.name] && g[x.name].prototype instanceof Error ? g[x.name] : Error)(x.message); if (x.stack) o.stack = x.stack; if ('cause' in x) o.cause = clone(x.cause); }
      else if (x instanceof Boolean || x instanceof Number || x instanceof String) o = Object(x.valueOf());
      else if (x instanceof WeakMap || x instanceof WeakSet || x instanceof Promise) throw new DOMException('#<' + x.constructor.name + '> could not be cloned.', 'DataCloneError');
      else { o = {}; seen.set(x, o); for (const k of Object.keys(x)) o[k] = clone(x[k]); return o; }
      seen.set(x, o);
      return o;
    };
    return clone(v);
  }

  // ---- crypto (random only) ----
  const crypto = {
    getRandomValues(a) {
      const b = toBytes(a);
      if (!b || a instanceof Float32Array || a instanceof Float64Array || a instanceof DataView) throw new TypeError('The data argument must be an integer-type TypedArray');
      if (b.byteLength > 65536) throw new DOMException('The ArrayBufferView\'s byte length exceeds the number of bytes of entropy available via this API (65536)', 'QuotaExceededError');
      const tmp = new Uint8Array(b.byteLength);
      native.random(tmp.buffer);
      b.set(tmp);
      return a;
    },
    randomUUID() {
      const b = crypto.getRandomValues(new Uint8Array(16));
      b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
      const h = Array.from(b, (x) => (x < 16 ? '0' : '') + x.toString(16)).join('');
      return h.slice(0, 8) + '-' + h.slice(8, 12) + '-' + h.slice(12, 16) + '-' + h.slice(16, 20) + '-' + h.slice(20);
    },
  };

  const performance = { now: () => native.now() - started, timeOrigin: Date.now() - (native.now() - started) };

  // ---- the globals ----
  const globals = {
    console, process, Buffer, TextEncoder, TextDecoder, URL, URLSearchParams, Headers, Request, Response, fetch,
    AbortController, AbortSignal, DOMException, structuredClone, queueMicrotask, crypto, performance,
    setTimeout: setTimer(false), setInterval: setTimer(true), clearTimeout: clear, clearInterval: clear,
    setImmediate, clearImmediate,
    atob: (s) => { let o = ''; for (const b of b64Decode(String(s), true)) o += String.fromCharCode(b); return o; },
    btoa: (s) => {
      s = String(s);
      const b = new Uint8Array(s.length);
      for (let i = 0; i < s.length; i++) { const c = s.charCodeAt(i); if (c > 255) throw new DOMException('Invalid character', 'InvalidCharacterError'); b[i] = c; }
      return b64Encode(b);
    },
    global: g,
  };
  for (const k of Object.keys(globals)) Object.defineProperty(g, k, { value: globals[k], writable: true, configurable: true, enumerable: false });

  const NODE = Symbol.for('escouade.node');
  Object.defineProperty(g, NODE, { value: { fs, readline }, configurable: true });
  function moduleSource(name) {
    const names = { 'node:fs': Object.keys(fs), 'node:readline': Object.keys(readline) }[name];
    if (!names) throw new Error('Cannot find module \'' + name + '\': run.js provides node:fs and node:readline only');
    const key = name.slice(5);
    return 'const m = globalThis[Symbol.for("escouade.node")].' + key + ';\n' +
      names.map((n) => 'export const ' + n + ' = m.' + n + ';').join('\n') + '\nexport default m;\n';
  }

  function start() {
    const meta = JSON.parse(native.readFile('/bundle/meta.json'));
    const url = meta.url;
    const filename = decodeURIComponent(new URL(url).pathname);
    g._importMeta_ = { url, filename, dirname: filename.slice(0, filename.lastIndexOf('/')) };
    process.argv[1] = filename;
    // With its bytecode mounted (native.bytecode), the engine reads the
    // bundle from it and its source is not read at all.
    const src = native.bytecode ? undefined : native.readFile('/bundle/plugin.mjs');
    const done = native.evalModule(src, url);
    if (done && typeof done.then === 'function') done.then(undefined, (e) => native.crash(e));
  }

  return { start, deliver, step, moduleSource };
})
