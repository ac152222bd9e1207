// The command line of the build: escouade-plugin-build [DIR] [options], or
// npx @escouade-dev/plugin build [DIR] [options].

import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { build, BuildError, bundle, shown, type BuildOptions } from "./build.js";
import { SDK_VERSION } from "./version.js";

const USAGE = `usage: escouade-plugin-build [DIR] [--entry FILE] [--outfile FILE] [--minify] [--no-typecheck] [--no-sourcemap] [--check]

Type-checks the plugin in DIR (default .) with its tsconfig.json, if any,
then bundles it into the file its manifest's run.js names (default
dist/plugin.mjs), with its source map beside it (dist/plugin.mjs.map),
for the run.js engine of Escouade and for node alike. The entry defaults
to src/plugin.ts. A type error stops the build.

  --entry FILE    the entry, relative to DIR
  --outfile FILE  the bundle, relative to DIR
  --minify        minify the bundle
  --no-typecheck  bundle without type-checking first
  --no-sourcemap  write no source map (and remove one an earlier build wrote)
  --check         write nothing; exit 1 when the bundle on disk is not what a build makes
  --version       print the SDK's version`;

/** Runs the command with args (without node and the script); resolves to its exit code. */
export async function main(args: string[], out = process.stdout, err = process.stderr): Promise<number> {
  const opts: BuildOptions = {};
  let check = false;
  const rest = args[0] === "build" ? args.slice(1) : args;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    const value = () => {
      const v = rest[++i];
      if (v === undefined) throw new BuildError(`${a} needs a value`);
      return v;
    };
    if (a === "--entry") opts.entry = value();
    else if (a === "--outfile") opts.outfile = value();
    else if (a === "--minify") opts.minify = true;
    else if (a === "--no-typecheck") opts.typecheck = false;
    else if (a === "--no-sourcemap") opts.sourcemap = false;
    else if (a === "--check") check = true;
    else if (a === "--version") {
      out.write(SDK_VERSION + "\n");
      return 0;
    } else if (a === "-h" || a === "--help") {
      out.write(USAGE + "\n");
      return 0;
    } else if (a.startsWith("-") || opts.dir !== undefined) {
      err.write(`escouade-plugin-build: unexpected ${a}\n${USAGE}\n`);
      return 2;
    } else opts.dir = a;
  }
  try {
    const r = await (check ? bundle(opts) : build(opts));
    for (const w of r.warnings) err.write(w);
    const path = shown(opts.dir ?? ".", r.outfile);
    if (!check) {
      const mapNote = r.map === undefined ? "" : `, its source map beside it (${path}.map)`;
      out.write(`built ${path} (${Buffer.byteLength(r.text)} bytes) with @escouade-dev/plugin ${SDK_VERSION}${mapNote}\n`);
      return 0;
    }
    const bundlePath = join(resolve(opts.dir ?? "."), r.outfile);
    if (onDisk(bundlePath) === r.text && onDisk(bundlePath + ".map") === r.map) {
      out.write(`${path} is up to date\n`);
      return 0;
    }
    err.write(`${path} is not what a build makes: rebuild it (escouade-plugin-build ${opts.dir ?? "."})\n`);
    return 1;
  } catch (e) {
    if (!(e instanceof BuildError)) throw e;
    err.write(`escouade-plugin-build: ${e.message}\n`);
    return 1;
  }
}

/** A file's text, undefined when it cannot be read (missing: out of date). */
function onDisk(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
