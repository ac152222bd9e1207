// A host played by the tests: it feeds lines to a plugin served over a fake
// Io and collects what the plugin writes, waiting on each line as an event.

import { Plugin } from "../dist/index.js";

export class FakeHost {
  constructor(opts = {}) {
    this.lines = [];
    this.traces = [];
    this.exits = [];
    this.waiters = [];
    this.plugin = opts.plugin ?? new Plugin({ runtime: opts.runtime ?? "node", ...opts.options });
  }

  /** Starts serving; call after registering the plugin's handlers. */
  start() {
    this.conn = this.plugin.serve({
      write: (line) => {
        this.lines.push(line);
        this.wake();
      },
      trace: (text) => {
        this.traces.push(text);
        this.wake();
      },
      exit: (code) => this.exits.push(code),
    });
    return this;
  }

  send(line) {
    this.conn.receive(typeof line === "string" ? line : JSON.stringify(line));
  }

  wake() {
    for (const w of [...this.waiters]) w();
  }

  /** Resolves to the first line (taken off the list) for which match holds. */
  next(match = () => true) {
    return new Promise((resolve) => {
      const look = () => {
        const i = this.lines.findIndex((l) => match(l));
        if (i < 0) return false;
        const [line] = this.lines.splice(i, 1);
        this.waiters = this.waiters.filter((w) => w !== look);
        resolve(line);
        return true;
      };
      if (!look()) this.waiters.push(look);
    });
  }

  /** Resolves to the next line, parsed. */
  async nextJSON(match) {
    return JSON.parse(await this.next(match ? (l) => match(JSON.parse(l)) : undefined));
  }

  /** Resolves to the answer whose id text is idText. */
  answer(idText) {
    return this.next((l) => l.startsWith(`{"jsonrpc":"2.0","id":${idText},`));
  }

  /** Resolves to the next request of the plugin for method. */
  request(method) {
    return this.nextJSON((m) => m.method === method && "id" in m);
  }

  /** Resolves once a trace line holds text. */
  traced(text) {
    return new Promise((resolve) => {
      const look = () => {
        const t = this.traces.find((l) => l.includes(text));
        if (t === undefined) return false;
        this.waiters = this.waiters.filter((w) => w !== look);
        resolve(t);
        return true;
      };
      if (!look()) this.waiters.push(look);
    });
  }

  /** Answers the plugin's request req with result. */
  reply(req, result) {
    this.send(`{"jsonrpc":"2.0","id":${JSON.stringify(req.id)},"result":${JSON.stringify(result)}}`);
  }

  replyError(req, code, message, data) {
    this.send({ jsonrpc: "2.0", id: req.id, error: data === undefined ? { code, message } : { code, message, data } });
  }

  call(id, method, params) {
    const m = { jsonrpc: "2.0", id, method };
    if (params !== undefined) m.params = params;
    this.send(m);
  }

  async initialize() {
    this.call(1, "initialize", {
      protocolVersion: 1,
      escouade: { version: "2.2.0" },
      plugin: { id: "dev.test.js", version: "0.1.0" },
      lang: "en",
      capabilities: { batch: true, secrets: true, settings: true, log: true, attach: true },
    });
    return JSON.parse(await this.answer("1"));
  }
}
