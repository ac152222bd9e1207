// The pieces of one SDK call, timed inside the run.js engine (perf's
// TestSDKCallProfile bundles this file with the SDK's built dist/). Each
// stdin line {"piece": name, "n": count} runs that piece count times in a
// loop and answers {"piece": name, "us": microseconds per run}. The SDK's
// whole receive is timed through serve() with an output that keeps
// nothing: a handler that returns a value is answered within receive, so
// the loop holds the whole call (decode, dispatch, context, encode, write).
import { createInterface } from "node:readline";
import { Plugin } from "../../sdk/js/dist/index.js";
import { decode, encodeResult } from "../../sdk/js/dist/wire.js";

const line = `{"jsonrpc":"2.0","id":2,"method":"hello/echo","params":{"text":"hello world","channel":"general","n":[1,2,3]}}`;
const params = JSON.parse(line).params;

const plugin = new Plugin({ runtime: "wasm" });
plugin.method("hello/echo", (p) => p ?? null);
let written = 0;
const conn = plugin.serve({ write: () => void written++, trace: () => {}, exit: () => {} });

const pieces = {
  // The bare echo's work on a line, as the engine's echo row does it.
  "bare: JSON.parse": () => JSON.parse(line),
  "bare: JSON.stringify of the answer": () => JSON.stringify({ jsonrpc: "2.0", id: 2, result: params }),
  "bare: parse and stringify": () => {
    const m = JSON.parse(line);
    return JSON.stringify({ jsonrpc: "2.0", id: m.id, result: m.params });
  },
  // The SDK's.
  "sdk: decode (parse, checks, the id's text)": () => decode(line),
  "sdk: encodeResult": () => encodeResult("2", params),
  "sdk: receive, the whole call": () => conn.receive(line),
};

const rl = createInterface({ input: process.stdin });
rl.on("line", (l) => {
  const { piece, n } = JSON.parse(l);
  const run = pieces[piece];
  if (!run) {
    process.stdout.write(JSON.stringify({ piece, error: "no such piece", pieces: Object.keys(pieces) }) + "\n");
    return;
  }
  const start = performance.now();
  for (let i = 0; i < n; i++) run();
  const us = ((performance.now() - start) * 1000) / n;
  process.stdout.write(JSON.stringify({ piece, us }) + "\n");
});
