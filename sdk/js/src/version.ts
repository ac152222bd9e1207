/** The SDK's version, stamped on every bundle its build makes; package.json says the same (a test checks). */
export const SDK_VERSION = "0.3.0";

/** The legal comment that starts every bundle (docs/protocol.md#loading-and-compiling); esbuild keeps "/*!" comments. */
export const STAMP = `/*! @escouade-dev/plugin v${SDK_VERSION} */`;
