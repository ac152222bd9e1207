import { createInterface } from "node:readline";
createInterface({ input: process.stdin }).on("line", () => {});
export default function plugin() {}
