import { createInterface } from "node:readline";
import { execSync } from "node:child_process";
createInterface({ input: process.stdin }).on("line", () => execSync("true"));
