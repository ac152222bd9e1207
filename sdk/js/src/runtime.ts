// What the SDK needs of the place it runs in: a node process, or the run.js
// engine of the host (a JS engine in WebAssembly). Both give node:readline
// over process.stdin and process.stdout.write; nothing else is imported, as
// the engine refuses a bundle importing anything but node:fs and
// node:readline (docs/protocol.md#loading-and-compiling).

import { createInterface } from "node:readline";

/** Where the plugin runs: a node process, or the host's run.js engine in WASM. */
export type RuntimeKind = "node" | "wasm";

/** The lines of the protocol in and out, and the program's end. */
export interface Io {
  /** Writes one line (given without "\n") on stdout. */
  write(line: string): void;
  /** Writes one trace line on stderr, which the host journals. */
  trace(text: string): void;
  /** Ends the program once what was written is out. */
  exit(code: number): void;
}

interface ProcessLike {
  stdin?: unknown;
  stdout?: { write(chunk: string, cb?: (err?: Error | null) => void): unknown };
  stderr?: { write(chunk: string): unknown };
  exit?(code?: number): void;
  argv?: string[];
  env?: Record<string, string | undefined>;
  versions?: { node?: string };
}

function proc(): ProcessLike | undefined {
  return (globalThis as { process?: ProcessLike }).process;
}

/**
 * The run.js engine sets globalThis._importMeta_ (the bundle's import.meta,
 * docs/protocol.md#files-of-its-folder); a node process has it only if the program set it.
 * Without node's version the program cannot be node either.
 */
export function detectRuntime(): RuntimeKind {
  const meta = (globalThis as { _importMeta_?: unknown })._importMeta_;
  if (typeof meta === "object" && meta !== null) return "wasm";
  return proc()?.versions?.node ? "node" : "wasm";
}

/** What the host put in a process's environment (docs/protocol.md#2-starting-the-program); empty in WASM. */
export interface Env {
  pluginId?: string;
  api?: string;
  appVersion?: string;
  lang?: string;
}

export function readEnv(): Env {
  const env = proc()?.env ?? {};
  const out: Env = {};
  if (env.ESCOUADE_PLUGIN_ID) out.pluginId = env.ESCOUADE_PLUGIN_ID;
  if (env.ESCOUADE_PLUGIN_API) out.api = env.ESCOUADE_PLUGIN_API;
  if (env.ESCOUADE_VERSION) out.appVersion = env.ESCOUADE_VERSION;
  if (env.ESCOUADE_LANG) out.lang = env.ESCOUADE_LANG;
  return out;
}

/** The standard streams of the program, as Io. */
export function stdio(): Io {
  const p = proc();
  let pending = 0;
  let exitCode: number | undefined;
  const finish = () => {
    if (exitCode !== undefined && pending === 0) p?.exit?.(exitCode);
  };
  return {
    write(line) {
      const out = p?.stdout;
      if (!out) throw new Error("no process.stdout to write the protocol on");
      pending++;
      let out1 = false;
      const written = () => {
        if (out1) return;
        out1 = true;
        pending--;
        finish();
      };
      // The callback says the line is out. A write that returns nothing
      // (an engine without stream callbacks) counts as out at once.
      if (out.write(line + "\n", written) === undefined) written();
    },
    trace(text) {
      if (p?.stderr) p.stderr.write(text + "\n");
      else (globalThis as { console?: { error(s: string): void } }).console?.error(text);
    },
    exit(code) {
      exitCode = code;
      finish();
    },
  };
}

/**
 * Reads stdin line by line with node:readline; onLine gets each line without
 * its end, onEnd is called once when stdin ends. It returns a function that
 * stops reading.
 */
export function readStdin(onLine: (line: string) => void, onEnd: () => void): () => void {
  const rl = createInterface({ input: proc()?.stdin as NodeJS.ReadableStream, crlfDelay: Infinity, terminal: false });
  rl.on("line", onLine);
  rl.on("close", onEnd);
  return () => rl.close();
}

/**
 * The path of a JSON file at the plugin's root, for readFileSync. A build of
 * this SDK defines __ESCOUADE_BUNDLE_ROOT__ as the way from the bundle to the
 * root ("../" for dist/plugin.mjs). In the run.js engine the path is resolved
 * against globalThis._importMeta_.url, under node against the script node
 * runs (process.argv[1]); failing both, it is relative to the working
 * directory, the plugin's folder for a process.
 * @internal
 */
export function rootFilePath(name: string): string | URL {
  const root = typeof __ESCOUADE_BUNDLE_ROOT__ === "string" ? __ESCOUADE_BUNDLE_ROOT__ : "../";
  const meta = (globalThis as { _importMeta_?: { url?: unknown } })._importMeta_;
  const URLCtor = (globalThis as { URL?: typeof URL }).URL;
  if (meta && typeof meta.url === "string" && URLCtor) return new URLCtor(root + name, meta.url);
  const script = detectRuntime() === "node" ? proc()?.argv?.[1] : undefined;
  if (typeof script === "string" && script !== "") return besideScript(script, root, name);
  return name;
}

/**
 * script's folder, up root ("../" per level), then name; lexically, since
 * "dist/.." only resolves when dist exists.
 * @internal
 */
export function besideScript(script: string, root: string, name: string): string {
  const parts = script.split(/[\\/]/);
  parts.pop(); // the script's own name
  let ups = root.split("/").filter((s) => s === "..").length;
  while (ups > 0 && parts.length > 0 && parts[parts.length - 1] !== ".." && parts[parts.length - 1] !== "") {
    parts.pop();
    ups--;
  }
  const prefix = parts.length > 0 ? parts.join("/") + "/" : "";
  return prefix + "../".repeat(ups) + name;
}

declare const __ESCOUADE_BUNDLE_ROOT__: string | undefined;
