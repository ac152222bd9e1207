// The build of a plugin: its TypeScript or JavaScript sources bundled into
// one ES module the run.js engine takes (docs/protocol.md#loading-and-compiling): no export, no
// import but node:fs and node:readline, stamped with the SDK's version.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { builtinModules } from "node:module";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
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
}

export interface BuildResult {
  /** The bundle's path, relative to dir. */
  outfile: string;
  /** The bundle's text. */
  text: string;
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
  const text = result.outputFiles.find((f) => f.path.endsWith(outfile.split("/").join(sep)))?.text ?? result.outputFiles[0]!.text;
  const warnings = result.warnings.map((w) => `warning: ${formatMessage(w)}\n`);
  return { outfile, text, warnings };
}

/** One message of esbuild as file:line:column: text, the column counted from 1. */
function formatMessage(m: esbuild.Message): string {
  const at = m.location ? `${m.location.file}:${m.location.line}:${m.location.column + 1}: ` : "";
  return at + m.text;
}

/** Bundles the plugin in opts.dir and writes the bundle. */
export async function build(opts: BuildOptions = {}): Promise<BuildResult> {
  const r = await bundle(opts);
  const path = join(resolve(opts.dir ?? "."), r.outfile);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, r.text);
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

/** The SDK's runtime, as this build ships it. */
const sdkEntry = fileURLToPath(new URL("./index.js", import.meta.url));

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
