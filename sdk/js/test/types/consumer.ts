// A plugin's code type-checked against the SDK's declarations with no lib
// but ES2022 and no @types/node: an author needs nothing else.
import { Plugin, RpcError, codes, bodyBytes, type FetchResult, type InitializeParams } from "@escouade-dev/plugin";

const p = new Plugin();
p.method<{ name: string }, { text: string }>("x/greet", async ({ name }, ctx) => {
  if (ctx.signal?.aborted) throw new RpcError(codes.Failed);
  const r: FetchResult = await p.fetch("https://example.com", { headers: { accept: "text/plain" } });
  const bytes: Uint8Array = bodyBytes(r);
  const secret: string | null = await p.secret("token");
  const init: InitializeParams | undefined = p.init;
  await p.sleep(10);
  const text: string = await p.call("fs/read", { root: "temp", path: "a.txt" });
  const list = await p.call("fs/list", { root: "agent", path: ".", agent: "a1" });
  const run = await p.call("proc/run", { program: "git", args: ["status"], cwd: { root: "agentRepo", path: "." } });
  const anything = await p.call<{ x: number }>("app/custom", { any: true });
  // @ts-expect-error params that do not have the shape the schema gives are caught
  await p.call("secrets/get", { nokey: 1 });
  p.log("debug", `${text} ${list.map((e) => e.name).join()} ${run.code} ${anything.x}`);
  p.log("info", `${bytes.length} ${secret !== null} ${init?.lang}`);
  return { text: `${name} ${r.status}` };
});
p.on("ticket.column", (params: { ticket: string }) => p.log("debug", params.ticket));
void p.run();
