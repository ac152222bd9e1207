// The build of a plugin: its TypeScript or JavaScript sources bundled into
// one ES module the run.js engine takes (docs/protocol.md#loading-and-compiling): no export, no
// import but node:fs and node:readline, stamped with the SDK's version.

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { builtinModules } from "node:module";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { typecheck } from "./typecheck.js";
import { STAMP } from "./version.js";

/** The imports a bundle may keep: the engine serves these two only. */
export const ALLOWED_IMPORTS = ["node:fs", "node:readline"] as const;

/** Where the bundle goes when the manifest names no run.js. */
export const DEFAULT_OUTFILE = "dist/plugin.mjs";

/** The entries tried, in order, when none is given. */
export const DEFAULT_ENTRIES = ["src/plugin.ts", "src/index.ts", "src/plugin.js", "src/index.js", "plugin.ts", "index.ts"];

export interface BuildOptions {
  /** The plugin's folder (the manifest's); default the working directory. */
  dir?: string;
  /** The entry, relative to dir; default the first of DEFAULT_ENTRIES that exists. */
  entry?: string;
  /** The bundle, relative to dir; default the manifest's run.js, else dist/plugin.mjs. */
  outfile?: string;
  /** Minify the bundle; default false (a readable bundle is easier to review). */
  minify?: boolean;
  /**
   * Write the source map beside the bundle (dist/plugin.mjs.map), through
   * which the host shows stack positions in the plugin's sources; default true.
   */
  sourcemap?: boolean;
  /** Type-check a TypeScript entry first, a type error stopping the build; default true. */
  typecheck?: boolean;
}

export interface BuildResult {
  /** The bundle's path, relative to dir. */
  outfile: string;
  /** The bundle's text. */
  text: string;
  /** The source map's text, written at outfile + ".map"; absent without one. */
  map?: string;
  /** esbuild's warnings, formatted. */
  warnings: string[];
}

/** BuildError is a build that did not make a bundle the engine takes; its message says why. */
export class BuildError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BuildError";
  }
}

/** Bundles the plugin in opts.dir without writing it. */
export async function bundle(opts: BuildOptions = {}): Promise<BuildResult> {
  const dir = resolve(opts.dir ?? ".");
  const outfile = normalise(opts.outfile ?? manifestOutfile(dir) ?? DEFAULT_OUTFILE);
  const entry = opts.entry ?? DEFAULT_ENTRIES.find((e) => existsSync(join(dir, e)));
  if (!entry) throw new BuildError(`${dir}: no entry found (tried ${DEFAULT_ENTRIES.join(", ")}); give one with --entry`);
  const sourcemap = opts.sourcemap !== false;
  let result: esbuild.BuildResult & { metafile: esbuild.Metafile; outputFiles: esbuild.OutputFile[] };
  try {
    result = await esbuild.build({
      absWorkingDir: dir,
      entryPoints: [entry],
      outfile,
      bundle: true,
      write: false,
      metafile: true,
      format: "esm",
      platform: "neutral",
      target: "es2022",
      mainFields: ["module", "main"],
      conditions: ["import", "default"],
      external: [...ALLOWED_IMPORTS],
      legalComments: "inline",
      banner: { js: STAMP },
      charset: "utf8",
      minify: opts.minify ?? false,
      // The map names the sources' paths only: their text stays in src/.
      sourcemap: sourcemap ? "linked" : false,
      sourcesContent: false,
      define: { __ESCOUADE_BUNDLE_ROOT__: JSON.stringify(rootFromBundle(outfile)) },
      plugins: [sdkPlugin],
      logLevel: "silent",
    });
  } catch (e) {
    const errors = (e as { errors?: esbuild.Message[] }).errors;
    if (!errors) throw e;
    throw new BuildError(errors.map(formatMessage).join("\n"));
  }
  checkOutput(result.metafile, entry);
  // After esbuild: what the engine refuses is said first, types then.
  if (opts.typecheck !== false && /\.(m|c)?tsx?$/.test(entry)) {
    const problems = await typecheck(dir, entry, sdkTypes);
    if (problems.length > 0) throw new BuildError(`type errors (fix them, or build with --no-typecheck):\n${problems.join("\n")}`);
  }
  const output = (name: string) => result.outputFiles.find((f) => f.path.endsWith(sep + name.split("/").join(sep)))?.text;
  const text = output(outfile) ?? result.outputFiles[0]!.text;
  const map = sourcemap ? portableMap(output(outfile + ".map"), dir, outfile) : undefined;
  const warnings = result.warnings.map((w) => `warning: ${formatMessage(w)}\n`);
  return map === undefined ? { outfile, text, warnings } : { outfile, text, map, warnings };
}

/** One message of esbuild as file:line:column: text, the column counted from 1. */
function formatMessage(m: esbuild.Message): string {
  const at = m.location ? `${m.location.file}:${m.location.line}:${m.location.column + 1}: ` : "";
  return at + m.text;
}

/**
 * The map with the SDK's files named where an install puts them
 * (node_modules/@escouade-dev/plugin/dist/plugin.js in the plugin's folder),
 * wherever the SDK that builds lives: a map then says nothing of the
 * machine it was built on, and builds on two machines make the same map.
 */
function portableMap(text: string | undefined, dir: string, outfile: string): string | undefined {
  if (text === undefined) return undefined;
  const map = JSON.parse(text) as { sources?: string[] };
  const outDir = dirname(join(dir, outfile));
  map.sources = map.sources?.map((s) => {
    const inSdk = relative(sdkRoot, resolve(outDir, s));
    if (inSdk.startsWith("..") || isAbsolute(inSdk)) return s;
    return relative(outDir, join(dir, "node_modules", "@escouade-dev", "plugin", inSdk)).split(sep).join("/");
  });
  return JSON.stringify(map) + "\n";
}

/** Bundles the plugin in opts.dir and writes the bundle. */
export async function build(opts: BuildOptions = {}): Promise<BuildResult> {
  const r = await bundle(opts);
  const path = join(resolve(opts.dir ?? "."), r.outfile);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, r.text);
  // A map of an earlier build would put the host's positions in the wrong places.
  if (r.map !== undefined) writeFileSync(path + ".map", r.map);
  else rmSync(path + ".map", { force: true });
  return r;
}

/** The run.js of the manifest in dir, if there is one. */
function manifestOutfile(dir: string): string | undefined {
  const path = join(dir, "escouade-plugin.json");
  if (!existsSync(path)) return undefined;
  let m: { run?: { js?: unknown } };
  try {
    m = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new BuildError(`${path}: ${(e as Error).message}`);
  }
  return typeof m.run?.js === "string" ? m.run.js : undefined;
}

/** A bundle path inside the plugin's folder, with "/" separators. */
function normalise(outfile: string): string {
  const p = outfile.split("\\").join("/").replace(/^\.\//, "");
  if (isAbsolute(outfile) || p.split("/").includes("..") || p === "") {
    throw new BuildError(`${outfile}: the bundle must be inside the plugin's folder`);
  }
  return p;
}

/** The way from the bundle's folder to the plugin's root: "../" for dist/plugin.mjs. */
export function rootFromBundle(outfile: string): string {
  const depth = outfile.split("/").length - 1;
  return depth === 0 ? "./" : "../".repeat(depth);
}

/** The SDK's runtime, as this build ships it, and its types. */
const sdkEntry = fileURLToPath(new URL("./index.js", import.meta.url));
const sdkTypes = fileURLToPath(new URL("./index.d.ts", import.meta.url));
const sdkRoot = fileURLToPath(new URL("..", import.meta.url));

/**
 * "@escouade-dev/plugin" resolves to the runtime of the SDK that builds,
 * installed beside the plugin or not: the stamp then always says the
 * version of the code inside.
 */
const sdkPlugin: esbuild.Plugin = {
  name: "escouade-sdk",
  setup(b) {
    b.onResolve({ filter: /^@escouade-dev\/plugin$/ }, () => ({ path: sdkEntry }));
    // Node's other modules: refused at the import, with the engine's rule.
    b.onResolve({ filter: /^[a-z_/]+$|^node:/ }, (args) => {
      const bare = args.path.replace(/^node:/, "");
      if (!builtinModules.includes(bare)) return undefined;
      if ((ALLOWED_IMPORTS as readonly string[]).includes(args.path)) return { path: args.path, external: true };
      const fix = (ALLOWED_IMPORTS as readonly string[]).includes(`node:${bare}`) ? ` (fix: import "node:${bare}")` : "";
      return { errors: [{ text: `${args.path}: the run.js engine serves only ${ALLOWED_IMPORTS.join(" and ")}${fix}` }] };
    });
  },
};

/** Refuses what the engine would refuse: exports, and imports other than ALLOWED_IMPORTS. */
function checkOutput(meta: esbuild.Metafile, entry: string): void {
  const problems: string[] = [];
  for (const out of Object.values(meta.outputs)) {
    if (out.exports.length > 0) {
      problems.push(`${entry} exports ${out.exports.join(", ")}: a run.js bundle has no exports (fix: remove the export keyword)`);
    }
    for (const imp of out.imports) {
      if (!(ALLOWED_IMPORTS as readonly string[]).includes(imp.path)) {
        problems.push(`the bundle imports ${imp.path}: the run.js engine serves only ${ALLOWED_IMPORTS.join(" and ")}`);
      }
    }
  }
  if (problems.length > 0) throw new BuildError(problems.join("\n"));
}

/** The path of the bundle as the user gave the folder, for messages. */
export function shown(dir: string, outfile: string): string {
  const rel = relative(process.cwd(), join(resolve(dir), outfile));
  return rel === "" ? outfile : rel;
}
