import type { Endpoint, CallResult } from './endpoint.js';

/** What a process script asks the runtime to do. */
export type Effect =
  | { readonly k: 'sleep'; readonly localUs: number }
  | ({ readonly k: 'call' } & OutgoingCall)
  | { readonly k: 'callAll'; readonly calls: readonly OutgoingCall[] };

/** One request to send: where, what, how long to wait (by the sender's clock), and its message id. */
export interface OutgoingCall {
  readonly to: Endpoint;
  readonly request: unknown;
  readonly timeoutLocalUs: number;
  readonly msg: number;
}

/** A process script: a generator that yields effects and receives their results. */
export type Script<T> = Generator<Effect, T, unknown>;

/**
 * Sends a request and waits for its reply, a refusal or the timeout. `msg`
 * (from World.newMsg) ties the request, its handling and the reply together
 * in the trace.
 */
export function* call<Req, Rep>(to: Endpoint<Req, Rep>, request: Req, timeoutLocalUs: number, msg: number): Script<CallResult<Rep>> {
  return (yield { k: 'call', to: to as Endpoint, request, timeoutLocalUs, msg }) as CallResult<Rep>;
}
