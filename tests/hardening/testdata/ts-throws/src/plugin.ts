// A TypeScript plugin whose errors the host must show in this file: its
// bundle and source map are what the SDK's build makes (sdk/js's tests
// check it); tests/hardening/source_map_test.go runs them.
import { Plugin } from "@escouade-dev/plugin";

const p = new Plugin();

function boom(n: number): never {
  throw new Error(`boom ${n}`);
}

// t/throw: the handler throws; the SDK answers -32603 and traces the stack.
p.method("t/throw", () => boom(1));

// t/crash: a rejection nothing handles, which ends the instance.
p.method("t/crash", () => {
  void Promise.reject(new Error("uncaught"));
  return "ok";
});

p.run();
