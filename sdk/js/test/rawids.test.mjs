// The id reader docs/writing-a-js-plugin.md gives authors who write no SDK
// code, as examples/hand-js uses it: the same function, and it finds what
// the SDK's decoder finds.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { decodeLine } from "../dist/wire.js";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** The text of `function rawIds(line) { … }` in text: from its line to the first "}" alone on a line. */
function rawIdsSource(text) {
  const start = text.indexOf("function rawIds(line) {");
  assert.ok(start >= 0, "no rawIds");
  const end = text.indexOf("\n}\n", start);
  return text.slice(start, end + 2);
}

const docs = rawIdsSource(readFileSync(join(repo, "docs", "writing-a-js-plugin.md"), "utf8"));
const hand = rawIdsSource(readFileSync(join(repo, "examples", "hand-js", "dist", "plugin.mjs"), "utf8"));
const rawIds = new Function(`${docs}\nreturn rawIds;`)();

test("the docs give the reader hand-js uses", () => {
  assert.equal(docs, hand);
});

/** The ids the SDK's decoder finds for the object messages of line. */
function sdkIds(line) {
  const value = JSON.parse(line);
  const members = Array.isArray(value) ? value : [value];
  const { items } = decodeLine(line);
  return members
    .map((m, i) => [m, items[i]])
    .filter(([m]) => typeof m === "object" && m !== null && !Array.isArray(m))
    .map(([, it]) => it.msg?.id ?? (it.errId === "null" ? undefined : it.errId));
}

test("rawIds finds the exact ids of single messages and batches", () => {
  const cases = [
    [`{"jsonrpc":"2.0","id":9007199254740993,"method":"m"}`, ["9007199254740993"]],
    [`{"method":"m","params":{"id":1,"s":"\\"id\\":2"},"id":"a\\"b","jsonrpc":"2.0"}`, ['"a\\"b"']],
    [` { "jsonrpc" : "2.0" , "\\u0069d" : -1.5e3 , "method" : "m" } `, ["-1.5e3"]],
    [`{"jsonrpc":"2.0","method":"note"}`, [undefined]],
    [`[{"jsonrpc":"2.0","id":1,"method":"a"},7,{"jsonrpc":"2.0","method":"n"},{"id":"x","jsonrpc":"2.0","method":"b"}]`, ["1", undefined, '"x"']],
    [`{"jsonrpc":"2.0","id":null,"result":1}`, ["null"]],
  ];
  for (const [line, want] of cases) assert.deepEqual(rawIds(line), want, line);
});

test("rawIds agrees with the SDK's decoder on random messages", () => {
  const pieces = ['"}"', '"]"', '"\\\\"', '"\\""', '{"id":1}', "[[],{}]", "-1.5e3", "true", "null", '"\\u0069d"', '","', '{"a":[{"id":5}],"id":6}', '["id",1]'];
  let seed = 11;
  const rand = (n) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
  for (let i = 0; i < 2000; i++) {
    const params = `[${Array.from({ length: rand(5) }, () => pieces[rand(pieces.length)]).join(",")}]`;
    const id = [`"s${i}\\"q"`, String(9007199254740993n + BigInt(i)), "-0", `"\\u00e9"`][rand(4)];
    const one = rand(2)
      ? `{"params":${params},"id":${id},"jsonrpc":"2.0","method":"m"}`
      : `{"jsonrpc":"2.0", "method":"m" ,"id" : ${id},"params":${params}}`;
    const line = rand(3) === 0 ? `[${one},${params},${one}]` : one;
    assert.deepEqual(rawIds(line), sdkIds(line), line);
  }
});
