// Timers: setTimeout under node; in WASM the host's timer/set, timer/clear
// and timer/fired (docs/protocol.md#timer), since an instance does not run between
// turns and only the host can wake it.

import { codes, describeError, RpcError } from "./errors.js";
import type { TimerRef } from "../types/protocol.js";

/** A timer of the SDK; pass it to clearTimer. */
export interface Timer {
  readonly ms: number;
}

/** The longest delay, as setTimeout takes it: 2^31-1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export interface Timers {
  set(fn: () => void, ms: number): Timer;
  clear(t: Timer): void;
  /** Forgets every timer: the program is stopping. */
  close(): void;
  /** A timer/fired notification of the host. */
  fired(params: unknown): void;
}

/** The delay a timer is asked with: a whole number of ms within 0…2^31-1. */
export function timerMs(ms: number): number {
  if (typeof ms !== "number" || Number.isNaN(ms)) return 0;
  return Math.min(MAX_TIMER_MS, Math.max(0, Math.floor(ms)));
}

type Trace = (text: string) => void;

interface NodeTimer extends Timer {
  handle: ReturnType<typeof setTimeout>;
}

/** Timers of the runtime itself (node's setTimeout). */
export class LocalTimers implements Timers {
  private readonly live = new Set<NodeTimer>();
  constructor(private readonly trace: Trace) {}

  set(fn: () => void, ms: number): Timer {
    const t = { ms: timerMs(ms) } as NodeTimer;
    t.handle = setTimeout(() => {
      this.live.delete(t);
      runTimer(fn, this.trace);
    }, t.ms);
    this.live.add(t);
    return t;
  }

  clear(t: Timer): void {
    const nt = t as NodeTimer;
    if (!this.live.delete(nt)) return;
    clearTimeout(nt.handle);
  }

  close(): void {
    for (const t of this.live) clearTimeout(t.handle);
    this.live.clear();
  }

  fired(): void {}
}

/** What HostTimers needs of the connection. */
export interface HostCaller {
  call(method: string, params: unknown, opts?: { timeoutMs?: number }): Promise<unknown>;
}

interface HostTimer extends Timer {
  fn: () => void;
  hostId?: number;
  cleared: boolean;
}

/**
 * Timers of the host: timer/set answers the timer's number, and the host
 * sends timer/fired with it when due. A timer cleared before timer/set is
 * answered is cleared at the host once its number is known; a timer/fired
 * that comes before its timer/set answer fires it when the answer comes.
 * When the host does not serve timer/set (-32601: a process), it falls back
 * to setTimeout if the runtime has one.
 */
export class HostTimers implements Timers {
  private readonly byHostId = new Map<number, HostTimer>();
  private readonly early = new Set<number>();
  private local: LocalTimers | undefined;
  private closed = false;
  /** timer/set calls not answered yet: only then may a timer/fired come early. */
  private setting = 0;

  constructor(
    private readonly host: HostCaller,
    private readonly trace: Trace,
  ) {}

  set(fn: () => void, ms: number): Timer {
    if (this.local) return this.local.set(fn, ms);
    const t: HostTimer = { ms: timerMs(ms), fn, cleared: false };
    this.setting++;
    this.host.call("timer/set", { ms: t.ms }, { timeoutMs: 0 }).then(
      (r) => {
        this.setting--;
        this.armed(t, r);
      },
      (e) => {
        this.setting--;
        this.refused(t, e);
      },
    );
    return t;
  }

  private armed(t: HostTimer, r: unknown): void {
    const id = (r as TimerRef | null)?.timer;
    if (typeof id !== "number") {
      this.trace(`sdk: timer/set answered ${JSON.stringify(r)}, not {"timer": <number>}`);
      return;
    }
    if (t.cleared || this.closed) {
      this.clearAtHost(id);
      return;
    }
    t.hostId = id;
    if (this.early.delete(id)) {
      runTimer(t.fn, this.trace);
      return;
    }
    this.byHostId.set(id, t);
  }

  private refused(t: HostTimer, e: unknown): void {
    if (e instanceof RpcError && e.code === codes.MethodNotFound && typeof setTimeout === "function") {
      this.local ??= new LocalTimers(this.trace);
      if (!t.cleared && !this.closed) {
        const lt = this.local.set(t.fn, t.ms);
        // The author holds t: clearing it must clear the local timer.
        t.fn = () => {};
        (t as HostTimer & { local?: Timer }).local = lt;
      }
      return;
    }
    this.trace(`sdk: timer/set failed: ${e instanceof Error ? e.message : String(e)}`);
  }

  clear(t: Timer): void {
    const lt = (t as HostTimer & { local?: Timer }).local;
    if (lt && this.local) {
      this.local.clear(lt);
      return;
    }
    if (this.local && !("cleared" in t)) {
      this.local.clear(t);
      return;
    }
    const ht = t as HostTimer;
    if (ht.cleared) return;
    ht.cleared = true;
    if (ht.hostId !== undefined && this.byHostId.delete(ht.hostId)) this.clearAtHost(ht.hostId);
  }

  private clearAtHost(id: number): void {
    this.host.call("timer/clear", { timer: id }, { timeoutMs: 0 }).catch(() => {
      // A timer that fired meanwhile is no longer the host's: nothing to do.
    });
  }

  close(): void {
    this.closed = true;
    this.byHostId.clear();
    this.early.clear();
    this.local?.close();
  }

  fired(params: unknown): void {
    const id = (params as TimerRef | null)?.timer;
    if (typeof id !== "number" || this.closed) return;
    const t = this.byHostId.get(id);
    if (!t) {
      if (this.setting > 0) this.early.add(id);
      return;
    }
    this.byHostId.delete(id);
    if (!t.cleared) runTimer(t.fn, this.trace);
  }
}

function runTimer(fn: () => void, trace: Trace): void {
  try {
    fn();
  } catch (e) {
    trace(`sdk: a timer's function threw: ${describeError(e)}`);
  }
}
