/*! @escouade-dev/plugin v0.2.4 */
import { createInterface } from "node:readline";
createInterface({ input: process.stdin }).on("line", () => {});
