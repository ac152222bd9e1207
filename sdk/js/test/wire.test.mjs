// The decoding of lines (PROTOCOL.md §3): exact ids and every robustness case.

import { test } from "node:test";
import assert from "node:assert/strict";
import { decodeLine, encodeResult, encodeRequest, MAX_LINE_BYTES, utf8Length } from "../dist/wire.js";

const parseError = { code: -32700, message: "Parse error" };
const invalidRequest = { code: -32600, message: "Invalid Request" };

test("ids keep their exact text", () => {
  for (const id of ["9007199254740993", '"a\\"b"', '"\\u0041"', "-0", "1.50", "1e400", '"é"', "0"]) {
    const line = decodeLine(`{"jsonrpc":"2.0","id":${id},"method":"m"}`);
    assert.deepEqual(line.items, [{ msg: { id, method: "m", params: undefined } }], id);
    assert.equal(encodeResult(line.items[0].msg.id, 1), `{"jsonrpc":"2.0","id":${id},"result":1}`);
  }
});

test("the id is found wherever it stands and however its name is written", () => {
  const cases = [
    [`{"method":"m","params":{"id":1,"x":["}",{"id":2}]},"jsonrpc":"2.0","id":9007199254740993}`, "9007199254740993"],
    [` { "jsonrpc" : "2.0" , "\\u0069d" : 12345678901234567890 , "method" : "m" } `, "12345678901234567890"],
    [`{"jsonrpc":"2.0","params":["a\\\\",{"b":"\\"}"}],"id":"x\\\\","method":"m"}`, '"x\\\\"'],
    [`{"jsonrpc":"2.0","ID":5,"method":"m"}`, undefined],
  ];
  for (const [text, id] of cases) {
    const [item] = decodeLine(text).items;
    assert.equal(item.msg?.id, id, text);
  }
});

test("batches keep each member's id and errors", () => {
  const line = decodeLine(
    `[{"jsonrpc":"2.0","id":9007199254740993,"method":"a"},1,{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":true,"method":"b"}]`,
  );
  assert.equal(line.batch, true);
  assert.deepEqual(line.items, [
    { msg: { id: "9007199254740993", method: "a", params: undefined } },
    { err: invalidRequest, errId: "null" },
    { msg: { method: "n", params: undefined } },
    { err: invalidRequest, errId: "null" },
  ]);
});

test("lines that are not messages get the error PROTOCOL.md §3 gives", () => {
  const cases = [
    ["not json", parseError, "null"],
    [`{"jsonrpc":"2.0","id":1`, parseError, "null"],
    [`{"jsonrpc":"2.0","id":1,"method":"m"} x`, parseError, "null"],
    [`{"jsonrpc":"2.0","id":1,"method":"m"}{}`, parseError, "null"],
    ["[]", invalidRequest, "null"],
    ["7", invalidRequest, "null"],
    [`{"jsonrpc":"1.0","id":3,"method":"m"}`, invalidRequest, "3"],
    [`{"id":3,"method":"m"}`, invalidRequest, "3"],
    [`{"jsonrpc":"2.0","id":3,"method":7}`, invalidRequest, "3"],
    [`{"jsonrpc":"2.0","id":3,"method":""}`, invalidRequest, "3"],
    [`{"jsonrpc":"2.0","id":{},"method":"m"}`, invalidRequest, "null"],
    [`{"jsonrpc":"2.0","id":[1],"method":"m"}`, invalidRequest, "null"],
    [`{"jsonrpc":"2.0","id":false,"method":"m"}`, invalidRequest, "null"],
    [`{"jsonrpc":"2.0","id":null,"method":"m"}`, invalidRequest, "null"],
    [`{"jsonrpc":"2.0","id":3,"method":"m","params":5}`, invalidRequest, "3"],
    [`{"jsonrpc":"2.0","id":3,"method":"m","result":1}`, invalidRequest, "3"],
    [`{"Jsonrpc":"2.0","id":3,"method":"m"}`, invalidRequest, "3"],
    [`{"jsonrpc":"2.0","id":3}`, invalidRequest, "3"],
    [`{"jsonrpc":"2.0","id":3,"result":1,"error":{"code":1,"message":"x"}}`, invalidRequest, "3"],
    [`{"jsonrpc":"2.0","id":3,"error":{"code":1.5,"message":"x"}}`, invalidRequest, "3"],
    [`{"jsonrpc":"2.0","id":null,"result":1}`, invalidRequest, "null"],
  ];
  for (const [text, err, errId] of cases) {
    assert.deepEqual(decodeLine(text), { batch: false, items: [{ err, errId }] }, text);
  }
});

test("a member named twice is read as JSON.parse reads it, but the id keeps its first text", () => {
  assert.deepEqual(decodeLine(`{"jsonrpc":"2.0","id":3,"method":"a","method":"b","id":4}`).items, [{ msg: { id: "3", method: "b", params: undefined } }]);
});

test("blank lines give nothing; a \\r before the end is tolerated", () => {
  assert.deepEqual(decodeLine(""), { batch: false, items: [] });
  assert.deepEqual(decodeLine(" \t\r"), { batch: false, items: [] });
  assert.deepEqual(decodeLine(`{"jsonrpc":"2.0","method":"n"}\r`).items, [{ msg: { method: "n", params: undefined } }]);
});

test("answers are read with their result or error", () => {
  assert.deepEqual(decodeLine(`{"jsonrpc":"2.0","id":2,"result":null}`).items, [{ msg: { id: "2", hasResult: true, result: null } }]);
  assert.deepEqual(decodeLine(`{"jsonrpc":"2.0","id":2,"error":{"code":-32001,"message":"no","data":{"reason":"r"}}}`).items, [
    { msg: { id: "2", error: { code: -32001, message: "no", data: { reason: "r" } } } },
  ]);
});

test("a line over 8 MiB is a parse error", () => {
  const big = `{"jsonrpc":"2.0","method":"n","params":["${"é".repeat(MAX_LINE_BYTES / 2)}"]}`;
  assert.ok(utf8Length(big) > MAX_LINE_BYTES);
  assert.deepEqual(decodeLine(big).items, [{ err: parseError, errId: "null" }]);
});

test("utf8Length counts as UTF-8 does", () => {
  for (const s of ["", "a", "é", "✓", "😀", "\ud800", "a😀é\ud800x"]) {
    assert.equal(utf8Length(s), Buffer.byteLength(s, "utf8"), JSON.stringify(s));
  }
});

test("requests are written on one line", () => {
  assert.equal(encodeRequest("7", "secrets/get", { key: "a\nb" }), `{"jsonrpc":"2.0","id":7,"method":"secrets/get","params":{"key":"a\\nb"}}`);
  assert.equal(encodeRequest("8", "shutdown", undefined), `{"jsonrpc":"2.0","id":8,"method":"shutdown"}`);
});

test("random messages decode to what JSON.parse reads, with the id's text", () => {
  // A small property test: nested params with tricky strings never lead the
  // scanner astray.
  const pieces = ['"}"', '"]"', '"\\\\"', '"\\""', '{"id":1}', "[[],{}]", "-1.5e3", "true", "null", '"\\u0069d"'];
  let seed = 7;
  const rand = (n) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
  for (let i = 0; i < 500; i++) {
    const params = `[${Array.from({ length: rand(5) }, () => pieces[rand(pieces.length)]).join(",")}]`;
    const id = rand(2) ? `"s${i}\\"q"` : String(9007199254740993n + BigInt(i));
    const order = rand(2)
      ? `{"params":${params},"id":${id},"jsonrpc":"2.0","method":"m"}`
      : `{"jsonrpc":"2.0","method":"m","id":${id},"params":${params}}`;
    const [item] = decodeLine(order).items;
    assert.equal(item.msg.id, id);
    assert.deepEqual(item.msg.params, JSON.parse(params));
  }
});

test("a line in the host's own shape keeps its id's text, whichever way the id is written", () => {
  // Lines beginning as the host writes them ({"jsonrpc":"2.0","id":…) are
  // read without a scan when the id prints back as its text; every id
  // that does not (big, signed zero, decimal, escaped, named twice,
  // followed by spaces) must still come out as written. The id made
  // here is the oracle: the first id of the line, byte for byte.
  const ids = [
    "0", "7", "-3", "2147483648", "9007199254740991", "9007199254740993", "12345678901234567890",
    "-0", "1.50", "1.5", "1e3", "1E3", "1e400", "0.1", "-1.5e-7",
    '"a"', '""', '"a\\"b"', '"\\u0041"', '"A"', '"é"', '"\\u00e9"', '"😀"', '"\\ud83d\\ude00"', '"\\/"', '"/"',
    '"a\\\\"', '"\\n"', '"\u2028"', '"\\u2028"', "null",
  ];
  const tails = [
    ',"method":"m","params":{"id":9}}',
    ',"method":"m"}',
    ' ,"method":"m"}',
    ',"method":"m","id":5}',
    ',"method":"m","id":"x"}',
    ',"result":{"id":1}}',
    ',"error":{"code":-32001,"message":"no"}}',
    "}",
  ];
  let seed = 3;
  const rand = (n) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
  for (let i = 0; i < 3000; i++) {
    const id = ids[rand(ids.length)];
    const line = `{"jsonrpc":"2.0","id":${id}${tails[rand(tails.length)]}`;
    const value = JSON.parse(line);
    const [item] = decodeLine(line).items;
    const got = item.msg?.id ?? item.errId;
    // An id that is not a number or a string is answered with null.
    assert.equal(got, id === "null" ? "null" : id, line);
    if (item.msg?.method !== undefined) assert.deepEqual(item.msg.params, value.params ?? undefined, line);
  }
});

test("random ids after the host's head come back as written", () => {
  // A generator rather than a list: numbers of any sign, size, fraction
  // and exponent, strings of raw and escaped characters of every kind.
  let seed = 17;
  const rand = (n) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
  const digits = (n) => Array.from({ length: n }, () => rand(10)).join("");
  const number = () => {
    let t = (rand(4) === 0 ? "-" : "") + (rand(3) === 0 ? "0" : String(1 + rand(9)) + digits(rand(20)));
    if (rand(3) === 0) t += "." + digits(1 + rand(4));
    if (rand(4) === 0) t += ["e", "E"][rand(2)] + ["", "+", "-"][rand(3)] + digits(1 + rand(3));
    return t;
  };
  const chars = ["a", "Z", " ", "é", "😀", "\u2028", '\\"', "\\\\", "\\/", "/", "\\n", "\\t", "\\u0041", "\\ud83d\\ude00", "\\u00e9", ",", "}", ":"];
  const string = () => `"${Array.from({ length: rand(6) }, () => chars[rand(chars.length)]).join("")}"`;
  const tails = [',"method":"m"}', ',"method":"m","id":1}', "}", ',"result":null}', ' ,"method":"m"}'];
  for (let i = 0; i < 5000; i++) {
    const id = rand(2) ? number() : string();
    const line = `{"jsonrpc":"2.0","id":${id}${tails[rand(tails.length)]}`;
    const [item] = decodeLine(line).items;
    assert.equal(item.msg?.id ?? item.errId, id, line);
  }
});

test("the wire is exported for plugins written without the Plugin class", async () => {
  const wire = await import("@escouade-dev/plugin/wire");
  assert.equal(wire.decodeLine(`{"jsonrpc":"2.0","id":9007199254740993,"method":"m"}`).items[0].msg.id, "9007199254740993");
  const sdk = await import("@escouade-dev/plugin");
  assert.equal(typeof sdk.Plugin, "function");
});
