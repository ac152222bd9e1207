// The build: what it makes is a bundle the run.js engine takes, it refuses
// what the engine would refuse, and the bundle runs under node as a process.

import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { build, bundle, BuildError, rootFromBundle } from "../dist/build.js";
import { main } from "../dist/cli.js";
import { SDK_VERSION, STAMP } from "../dist/version.js";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = JSON.parse(readFileSync(join(here, "..", "package.json"), "utf8"));

const made = [];
after(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A plugin folder with files (path → text), removed after the tests. */
function plugin(files) {
  const dir = mkdtempSync(join(tmpdir(), "sdk-build-"));
  made.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const manifest = (run) =>
  JSON.stringify({ id: "dev.test.build", name: "B", version: "1.0.0", escouade: { api: "1" }, run, activation: ["onCall"] });

const source = `
/*! Example plugin, MIT licence */
import { Plugin, RpcError } from "@escouade-dev/plugin";
const p = new Plugin();
const rules = p.file("rules.json");
p.method("t/echo", (params) => params);
p.method("t/rules", () => rules);
p.method("t/secret", async () => ({ value: await p.secret("token") }));
p.method("t/refuse", () => { throw RpcError.invalidParams("no"); });
p.run();
`;

test("the version stamp is the package's", () => {
  assert.equal(SDK_VERSION, pkg.version);
  assert.equal(STAMP, `/*! @escouade-dev/plugin v${pkg.version} */`);
});

test("a bundle starts with the stamp, keeps legal comments, imports node:fs and node:readline only, exports nothing", async () => {
  const dir = plugin({ "escouade-plugin.json": manifest({ js: "dist/plugin.mjs" }), "src/plugin.ts": source, "rules.json": "{}" });
  const r = await build({ dir });
  assert.equal(r.outfile, "dist/plugin.mjs");
  const text = readFileSync(join(dir, "dist/plugin.mjs"), "utf8");
  assert.equal(text, r.text);
  assert.ok(text.startsWith(STAMP + "\n"), text.slice(0, 80));
  assert.ok(text.includes("/*! Example plugin, MIT licence */"));
  const imports = [...text.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]).sort();
  assert.deepEqual(imports, ["node:fs", "node:readline"]);
  assert.doesNotMatch(text, /^export /m);
  assert.doesNotMatch(text, /__ESCOUADE_BUNDLE_ROOT__/);
  assert.equal((await bundle({ dir })).text, text, "a second build makes the same bytes");
});

test("the bundle goes where run.js says, and finds the root from there", async () => {
  assert.equal(rootFromBundle("plugin.mjs"), "./");
  assert.equal(rootFromBundle("dist/plugin.mjs"), "../");
  assert.equal(rootFromBundle("out/js/plugin.mjs"), "../../");
  const dir = plugin({ "escouade-plugin.json": manifest({ js: "out/js/plugin.mjs" }), "src/plugin.ts": source, "rules.json": '{"deep":true}' });
  const r = await build({ dir });
  assert.equal(r.outfile, "out/js/plugin.mjs");
  assert.match(r.text, /"\.\.\/\.\.\/"/);
});

test("what the engine refuses, the build refuses, naming it", async () => {
  const cases = [
    [{ "src/plugin.ts": `export const x = 1;` }, /src\/plugin\.ts exports x: a run\.js bundle has no exports/],
    [{ "src/plugin.ts": `import { join } from "node:path"; console.log(join("a"));` }, /^src\/plugin\.ts:1:22: node:path: the run\.js engine serves only node:fs and node:readline$/],
    [{ "src/plugin.ts": `import fs from "fs"; fs.x;` }, /^src\/plugin\.ts:1:16: fs: the run\.js engine serves only node:fs and node:readline \(fix: import "node:fs"\)$/],
    [{ "src/plugin.ts": `const m = await import("node:" + "os"); m;` }, /^src\/plugin\.ts:1:24: node:os: the run\.js engine serves only node:fs and node:readline$/],
    [{ "src/plugin.ts": `const = 1;` }, /^src\/plugin\.ts:1:7: Expected identifier but found "="$/],
    [{ "README.md": "" }, /no entry found \(tried src\/plugin\.ts/],
    [{ "escouade-plugin.json": manifest({ js: "../out.mjs" }), "src/plugin.ts": "" }, /the bundle must be inside the plugin's folder/],
  ];
  for (const [files, want] of cases) {
    const dir = plugin(files);
    await assert.rejects(bundle({ dir }), (e) => e instanceof BuildError && want.test(e.message), `${JSON.stringify(files)} → ${want}`);
  }
});

test("the command builds, checks and says what it did", async () => {
  const dir = plugin({ "src/plugin.ts": source, "rules.json": "{}" });
  const out = sink();
  const err = sink();
  assert.equal(await main(["build", dir, "--check"], out, err), 1);
  assert.match(err.text, /is not what a build makes: rebuild it/);
  assert.equal(await main([dir], out, err), 0);
  assert.match(out.text, /built .*dist\/plugin\.mjs \(\d+ bytes\) with @escouade-dev\/plugin 0\.3\.0/);
  assert.equal(await main([dir, "--check"], out, err), 0);
  assert.match(out.text, /is up to date/);
  assert.equal(await main(["--version"], out, err), 0);
  assert.match(out.text, /0\.3\.0\n$/);
  assert.equal(await main([dir, "--bogus"], out, err), 2);
});

test("the committed bundles and maps of examples/hello-js and of tests/hardening/testdata/ts-throws are what the build makes", async () => {
  for (const dir of [["examples", "hello-js"], ["tests", "hardening", "testdata", "ts-throws"]]) {
    const out = sink();
    const err = sink();
    const code = await main(["--check", join(here, "..", "..", "..", ...dir)], out, err);
    assert.equal(code, 0, err.text + ` (rebuild ${dir.join("/")} with the SDK's build and commit its dist/)`);
  }
});

test("the bundle runs under node as a process: exact ids, a host call answered, shutdown then exit", async () => {
  const dir = plugin({ "src/plugin.ts": source, "rules.json": '{"max":3}' });
  await build({ dir });
  const child = spawn(process.execPath, ["dist/plugin.mjs"], { cwd: dir, stdio: ["pipe", "pipe", "pipe"] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => (await lines.next()).value;
  const send = (l) => child.stdin.write(l + "\n");
  const exited = new Promise((r) => child.on("exit", (code) => r(code)));

  send(`{"jsonrpc":"2.0","id":9007199254740993,"method":"initialize","params":{"protocolVersion":1}}`);
  assert.equal(await next(), `{"jsonrpc":"2.0","id":9007199254740993,"result":{"protocolVersion":1,"capabilities":{"batch":true,"attach":false}}}`);
  send(`{"jsonrpc":"2.0","id":2,"method":"t/rules"}`);
  assert.equal(await next(), `{"jsonrpc":"2.0","id":2,"result":{"max":3}}`);
  send(`{"jsonrpc":"2.0","id":"s","method":"t/secret"}`);
  const ask = JSON.parse(await next());
  assert.deepEqual([ask.method, ask.params], ["secrets/get", { key: "token" }]);
  send(`{"jsonrpc":"2.0","id":${ask.id},"result":"hunter2"}`);
  assert.equal(await next(), `{"jsonrpc":"2.0","id":"s","result":{"value":"hunter2"}}`);
  send(`[{"jsonrpc":"2.0","id":1e400,"method":"t/refuse"},{"jsonrpc":"2.0","method":"event/none"}]`);
  assert.equal(await next(), `[{"jsonrpc":"2.0","id":1e400,"error":{"code":-32602,"message":"Invalid params: no"}}]`);
  send(`{"jsonrpc":"2.0","id":3,"method":"shutdown"}`);
  assert.equal(await next(), `{"jsonrpc":"2.0","id":3,"result":null}`);
  assert.equal(await exited, 0);
});

test("the end of stdin ends the program", async () => {
  const dir = plugin({ "src/plugin.ts": `import { Plugin } from "@escouade-dev/plugin"; const p = new Plugin(); p.setTimer; setInterval(() => {}, 1000); p.run();` });
  await build({ dir });
  const child = spawn(process.execPath, ["dist/plugin.mjs"], { cwd: dir, stdio: ["pipe", "ignore", "inherit"] });
  const exited = new Promise((r) => child.on("exit", (code) => r(code)));
  child.stdin.end();
  assert.equal(await exited, 0);
});

function sink() {
  return {
    text: "",
    write(s) {
      this.text += s;
      return true;
    },
  };
}

test("the build writes a source map beside the bundle, naming the plugin's sources and the SDK's where an install puts them", async () => {
  const dir = plugin({ "escouade-plugin.json": manifest({ js: "dist/plugin.mjs" }), "src/plugin.ts": source, "rules.json": "{}" });
  const r = await build({ dir });
  assert.ok(r.text.endsWith("//# sourceMappingURL=plugin.mjs.map\n"), r.text.slice(-80));
  const map = JSON.parse(readFileSync(join(dir, "dist/plugin.mjs.map"), "utf8"));
  assert.equal(map.version, 3);
  assert.ok(map.sources.includes("../src/plugin.ts"), map.sources.join(" "));
  assert.ok(map.sources.includes("../node_modules/@escouade-dev/plugin/dist/plugin.js"), map.sources.join(" "));
  assert.ok(map.sources.every((s) => !s.includes(tmpdir()) && !s.includes("/sdk/js/")), map.sources.join(" "));
  assert.equal(map.sourcesContent, undefined, "the map carries no source text");

  await build({ dir, sourcemap: false });
  assert.throws(() => readFileSync(join(dir, "dist/plugin.mjs.map")), /ENOENT/, "a build without a map removes the earlier one");
});

test("a type error stops the build, at its line; --no-typecheck bundles anyway", async () => {
  const bad = `import { Plugin } from "@escouade-dev/plugin";\nconst p = new Plugin();\np.method("t/read", () => p.readFile(123 as number));\np.run();\n`;
  const dir = plugin({ "src/plugin.ts": bad });
  await assert.rejects(bundle({ dir }), (e) => e instanceof BuildError && /^src\/plugin\.ts:3:37: TS2345: Argument of type 'number'/m.test(e.message), "the type error");
  const out = sink();
  const err = sink();
  assert.equal(await main([dir], out, err), 1);
  assert.match(err.text, /type errors \(fix them, or build with --no-typecheck\)/);
  assert.equal(await main([dir, "--no-typecheck"], out, err), 0);

  // The plugin's tsconfig.json is its author's: its options are used.
  const loose = plugin({ "src/plugin.ts": `function f(x) { return x; }\nf(1);\n`, "tsconfig.json": `{"compilerOptions": {"strict": false, "noEmit": true}, "include": ["src"]}` });
  await bundle({ dir: loose });
  const strict = plugin({ "src/plugin.ts": `function f(x) { return x; }\nf(1);\n` });
  await assert.rejects(bundle({ dir: strict }), /src\/plugin\.ts:1:12: TS7006/);
});

test("the command counts the bundle's bytes, not its characters", async () => {
  const dir = plugin({ "src/plugin.ts": `console.log("héllo wörld ✓");\n` });
  const out = sink();
  assert.equal(await main([dir], out, sink()), 0);
  const onDisk = readFileSync(join(dir, "dist/plugin.mjs"));
  assert.notEqual(onDisk.length, onDisk.toString("utf8").length, "the bundle has characters of more than one byte");
  assert.match(out.text, new RegExp(`\\(${onDisk.length} bytes\\)`));
});
