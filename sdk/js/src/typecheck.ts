// The type check of the build: a plugin's TypeScript checked by the
// TypeScript compiler before it is bundled (esbuild only strips types), so
// that p.readFile(123 as number) stops the build as it would stop tsc.

import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

/** The options of a plugin folder without a tsconfig.json: the engine's language and globals. */
const DEFAULT_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  // DOM for the globals the engine has (console, fetch, setTimeout, URL, TextEncoder).
  lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
  strict: true,
  skipLibCheck: true,
};

/**
 * The type errors of the plugin in dir, formatted file:line:column: text,
 * none when it checks. A tsconfig.json in dir is the author's: its options
 * and files are used; without one, the entry is checked with DEFAULT_OPTIONS.
 * Either way "@escouade-dev/plugin" names the types of the SDK that builds
 * (sdkTypes), as the bundle gets its runtime.
 */
export async function typecheck(dir: string, entry: string, sdkTypes: string): Promise<string[]> {
  const config = join(dir, "tsconfig.json");
  let options = DEFAULT_OPTIONS;
  let files = [join(dir, entry)];
  if (existsSync(config)) {
    const read = ts.readConfigFile(config, ts.sys.readFile);
    if (read.error) return [format(read.error, dir)];
    const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dir, undefined, config);
    if (parsed.errors.length > 0) return parsed.errors.map((d) => format(d, dir));
    options = parsed.options;
    if (parsed.fileNames.length > 0) files = parsed.fileNames;
  }
  const program = ts.createProgram(files, {
    ...options,
    noEmit: true,
    paths: { ...options.paths, "@escouade-dev/plugin": [sdkTypes] },
  });
  return ts.getPreEmitDiagnostics(program)
    .filter((d) => d.category === ts.DiagnosticCategory.Error)
    .map((d) => format(d, dir));
}

/** One diagnostic as file:line:column: text (from 1), the file relative to dir. */
function format(d: ts.Diagnostic, dir: string): string {
  const text = ts.flattenDiagnosticMessageText(d.messageText, "\n");
  if (!d.file || d.start === undefined) return `TS${d.code}: ${text}`;
  const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
  return `${relative(dir, d.file.fileName)}:${line + 1}:${character + 1}: TS${d.code}: ${text}`;
}
