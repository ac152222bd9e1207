// The command line of the build: escouade-plugin-build [DIR] [options], or
// npx @escouade-dev/plugin build [DIR] [options].

import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { build, BuildError, bundle, shown, type BuildOptions } from "./build.js";
import { SDK_VERSION } from "./version.js";

const USAGE = `usage: escouade-plugin-build [DIR] [--entry FILE] [--outfile FILE] [--minify] [--check]

Bundles the plugin in DIR (default .) into the file its manifest's run.js
names (default dist/plugin.mjs), for the run.js engine of Escouade and for
node alike. The entry defaults to src/plugin.ts.

  --entry FILE    the entry, relative to DIR
  --outfile FILE  the bundle, relative to DIR
  --minify        minify the bundle
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
      out.write(`built ${path} (${r.text.length} bytes) with @escouade-dev/plugin ${SDK_VERSION}\n`);
      return 0;
    }
    let onDisk = "";
    try {
      onDisk = readFileSync(join(resolve(opts.dir ?? "."), r.outfile), "utf8");
    } catch {
      // missing: reported below as out of date
    }
    if (onDisk === r.text) {
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
