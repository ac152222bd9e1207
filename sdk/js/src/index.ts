// @escouade-dev/plugin: the JavaScript SDK of Escouade plugins. It speaks
// plugin protocol 1 for a plugin's program, bundled for the host's run.js
// engine or run by node as a process, so that its author only writes the
// methods the plugin offers.

export { Plugin, PROTOCOL_VERSION, SDK_VERSION } from "./plugin.js";
export type {
  AbortSignalLike,
  BatchCall,
  BatchOutcome,
  CallOptions,
  Context,
  Handler,
  HostCalls,
  HostMethod,
  LogLevel,
  NotificationHandler,
  PluginOptions,
} from "./plugin.js";
export { CallTimeoutError, codes, NotConnectedError, RpcError } from "./errors.js";
export { bodyBytes } from "./fetch.js";
export type { FetchInit, FetchLimits } from "./fetch.js";
export type { Env, Io, RuntimeKind } from "./runtime.js";
export type { Timer } from "./timers.js";
export type * from "../types/protocol.js";
