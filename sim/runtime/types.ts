import type { Rng } from '../kernel/rng.js';
import type { EventFields } from '../trace/recorder.js';
import type { Belief } from '../trace/types.js';

/**
 * The seam between a lock client (the lifecycle and the store drivers) and
 * the world it runs in. The simulated world implements it with virtual time
 * and seeded streams; a real runner implements it with a monotonic clock and
 * real servers. Client code imports this module and never the world.
 */

/** A store node or the resource, as a client names it: calls are addressed by name. */
export interface NodeRef {
  readonly name: string;
}

/** What a script asks its runtime to do. */
export type Effect =
  | { readonly k: 'sleep'; readonly localUs: number }
  | ({ readonly k: 'call' } & OutgoingCall)
  | { readonly k: 'callAll'; readonly calls: readonly OutgoingCall[] };

/** One request to send: to which node (by name), what, how long to wait (by the sender's clock), and its message id. */
export interface OutgoingCall {
  readonly to: string;
  readonly request: unknown;
  readonly timeoutLocalUs: number;
  readonly msg: number;
}

/** A script: a generator that yields effects and receives their results. */
export type Script<T> = Generator<Effect, T, unknown>;

/**
 * What a client's steps may yield besides effects: a script to run in its
 * place, to its end (`sub`, sim/runtime/script-stack.ts), as the guarded
 * part of a try when `guarded`; and an exception to throw (`fail`). Every
 * runtime drives a process's script through a ScriptStack, which runs
 * these.
 */
export type StepEffect =
  Effect | { readonly k: 'sub'; readonly script: Steps<unknown>; readonly guarded: boolean } | { readonly k: 'throw'; readonly error: unknown };

/** A script that may start others with `sub`. */
export type Steps<T> = Generator<StepEffect, T, unknown>;

/** What a caller gets back from a call. */
export type CallResult<Rep> =
  | { readonly status: 'reply'; readonly reply: Rep; readonly msg: number }
  /** No reply in time: the request may or may not have taken effect. */
  | { readonly status: 'timeout'; readonly msg: number }
  /** The connection was refused: the request definitely did not take effect. */
  | { readonly status: 'refused'; readonly msg: number };

/**
 * Sends a request to the node named `to` and waits for its reply, a refusal
 * or the timeout. `msg` (from `Runtime.newMsg`) ties the request, its
 * handling and the reply together in the trace.
 */
export function* call<Rep>(to: string, request: unknown, timeoutLocalUs: number, msg: number): Script<CallResult<Rep>> {
  return (yield { k: 'call', to, request, timeoutLocalUs, msg }) as CallResult<Rep>;
}

/** `call` as an effect to yield directly, its result cast by the caller: one generator fewer between the request and the runtime. */
export function callEffect(to: string, request: unknown, timeoutLocalUs: number, msg: number): Effect {
  return { k: 'call', to, request, timeoutLocalUs, msg };
}

/** A sleep of `localUs` by the caller's own clock, as an effect to yield directly. */
export function sleep(localUs: number): Effect {
  return { k: 'sleep', localUs };
}

/**
 * What one client process may ask of the world around it. Everything is by
 * the process's own clock; true time is the runtime's business.
 */
export interface Runtime {
  /** The client (process) this runtime serves, and its machine. */
  readonly process: string;
  readonly machine: string;
  /** The machine's clock now, in microseconds. */
  localNow(): number;
  /** Records an event of this process, stamped by the runtime. */
  record(kind: string, fields: EventFields, key: string | undefined, believes: Belief | undefined): void;
  /** A fresh message id, unique in the run. */
  newMsg(): number;
  /** A seeded stream of the given name (the same name gives the same draws in every run with this seed). */
  rng(name: string): Rng;
  /** Runs another script in this process now: a lock library's background thread. */
  thread(script: Script<void>): void;
  /**
   * pcntl_fork(): starts a process named `name` on this machine, a copy of
   * this one sharing its connections, that runs `body` with its own runtime
   * and exits when it returns. Runtimes that cannot fork leave it out.
   */
  fork?(name: string, body: (rt: Runtime) => Steps<void>): void;
  /**
   * Stops this whole process for `durationUs` of true time, from now: a GC
   * pause the workload itself draws. Whatever the script yields next waits
   * until the pause is over.
   */
  stall(durationUs: number): void;
}
