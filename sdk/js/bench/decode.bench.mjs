// The cost of reading lines, next to JSON.parse alone: node bench/decode.bench.mjs
import { decodeLine } from "../dist/wire.js";

function measure(name, line, rounds) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) JSON.parse(line);
  const t1 = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) decodeLine(line);
  const t2 = process.hrtime.bigint();
  const parse = Number(t1 - t0) / rounds / 1e3;
  const decode = Number(t2 - t1) / rounds / 1e3;
  console.log(`${name.padEnd(28)} JSON.parse ${parse.toFixed(1).padStart(9)} µs   decodeLine ${decode.toFixed(1).padStart(9)} µs   (x${(decode / parse).toFixed(2)})`);
}

measure("small request", `{"jsonrpc":"2.0","id":9007199254740993,"method":"notes/greet","params":{"name":"Ada"}}`, 200000);
const nested = JSON.stringify({ items: Array.from({ length: 20000 }, (_, i) => ({ id: i, text: `item "${i}" }]`, tags: ["a", "b"] })) });
measure("1 MB nested params", `{"jsonrpc":"2.0","id":7,"method":"m","params":${nested}}`, 30);
measure("1 MB notification", `{"jsonrpc":"2.0","method":"event/x","params":${nested}}`, 30);
measure("1 MB params before the id", `{"jsonrpc":"2.0","params":${nested},"method":"m","id":7}`, 30);
const batch = `[${Array.from({ length: 100 }, (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"m","params":{"n":${i}}}`).join(",")}]`;
measure("batch of 100", batch, 5000);
