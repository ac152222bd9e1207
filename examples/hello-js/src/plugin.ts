// The hello-js example plugin: TypeScript bundled by @escouade-dev/plugin
// into dist/plugin.mjs, run by Escouade's run.js engine, or by node as a
// process with the same answers.

import { Plugin, RpcError, type Context, type FetchResult } from "@escouade-dev/plugin";

// The facts the manifest declares, which the code must agree with.
const DEFAULT_GREETING = "Hello"; // contributes.settings.greeting.default
const TOKEN_KEY = "token"; // permissions.secrets

/** greetings.json, a JSON file at the plugin's root: given to the instance at its start. */
interface Greetings {
  punctuation: string;
  emoji: Record<string, string>;
}

interface GreetParams {
  name?: unknown;
  project?: unknown;
  /** Waits this long first, on a timer (timer/set in WASM). */
  delayMs?: unknown;
}

interface GreetResult {
  text: string;
  emoji: string;
  token: boolean;
  waited: number;
}

const p = new Plugin();
const greetings = p.file<Greetings>("greetings.json");

p.method<GreetParams, GreetResult>("hello/greet", async (params, ctx) => {
  const name = params?.name;
  if (typeof name !== "string" || name === "") throw RpcError.invalidParams("name is required");
  const delay = params.delayMs ?? 0;
  if (typeof delay !== "number" || delay < 0) throw RpcError.invalidParams("delayMs must be a number, not negative");
  if (delay > 0) await p.sleep(delay);

  const settings = await p.settings(typeof params.project === "string" ? params.project : undefined);
  const greeting = typeof settings.greeting === "string" ? settings.greeting : DEFAULT_GREETING;
  let text = `${greeting}, ${name}${greetings.punctuation}`;
  if (settings.shout === true) text = text.toUpperCase();

  p.log("info", `greeted ${name}`);
  p.trace(`hello-js: greeting ${name}`);
  const lang = p.init?.lang ?? "en";
  return { text, emoji: greetings.emoji[lang] ?? greetings.emoji.en ?? "", token: await hasToken(ctx), waited: delay };
});

/** Whether the user keeps a token; never the token itself. */
async function hasToken(ctx: Context): Promise<boolean> {
  try {
    return (await ctx.plugin.secret(TOKEN_KEY)) !== null;
  } catch (e) {
    p.log("warn", `no token: ${(e as Error).message}`);
    return false;
  }
}

interface FetchParams {
  url?: unknown;
}

/** hello/fetch {url} → {status, length, type}: through net/fetch in WASM, node's fetch as a process. */
p.method<FetchParams>("hello/fetch", async (params) => {
  if (typeof params?.url !== "string") throw RpcError.invalidParams("url is required");
  const res: FetchResult = await p.fetch(params.url, { headers: { accept: "application/json" } });
  return { status: res.status, type: res.headers["content-type"] ?? "", body: res.bodyEncoding === "utf8" ? res.body : null };
});

/** hello/echo answers its params unchanged. */
p.method("hello/echo", (params) => params ?? null);

p.on("ticket.column", (params) => {
  p.log("info", `ticket.column: ${JSON.stringify(params)}`);
});

p.run();
