// A protocol-1 plugin in node: answers initialize and echoes the params
// of perf/echo, line by line, batches as arrays.
import { createInterface } from "node:readline";

function answer(m) {
  if (m === null || typeof m !== "object" || m.id === undefined) return null;
  switch (m.method) {
    case "initialize":
      return { jsonrpc: "2.0", id: m.id, result: { protocolVersion: 1, capabilities: { batch: true } } };
    case "perf/echo":
      return { jsonrpc: "2.0", id: m.id, result: m.params ?? null };
    case "shutdown":
      return { jsonrpc: "2.0", id: m.id, result: null };
  }
  return { jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } };
}

createInterface({ input: process.stdin }).on("line", (line) => {
  if (line.trim() === "") return;
  let value;
  try {
    value = JSON.parse(line);
  } catch {
    process.stdout.write('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}\n');
    return;
  }
  const out = Array.isArray(value) ? value.map(answer).filter((a) => a !== null) : answer(value);
  if (out !== null && !(Array.isArray(out) && out.length === 0)) {
    process.stdout.write(JSON.stringify(out) + "\n");
  }
});
