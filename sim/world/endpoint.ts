import type { Machine } from './machine.js';

/** Who sent a request, as the receiving end sees it. */
export interface Caller {
  readonly process: string;
  readonly machine: string;
  readonly msg: number;
  /**
   * Replies later, for an endpoint whose `handle` returned DEFER (a blocking
   * lock that grants when the holder lets go). The reply travels back over
   * the network like any other; it is ignored if the caller gave up waiting.
   */
  respond(reply: unknown): void;
}

/** Returned by `handle` to reply later through `caller.respond`. */
export const DEFER: unique symbol = Symbol('defer');

/**
 * Anything a process can send a request to: a store node or the protected
 * resource. `handle` runs when the request arrives and returns the reply,
 * which then travels back over the network.
 */
export interface Endpoint<Req = unknown, Rep = unknown> {
  readonly name: string;
  readonly machine: Machine;
  /** False while the endpoint is down; requests then fail fast with "refused". */
  isUp(): boolean;
  handle(request: Req, caller: Caller): Rep | typeof DEFER;
}

/** What a process gets back from a call. */
export type CallResult<Rep> =
  | { readonly status: 'reply'; readonly reply: Rep; readonly msg: number }
  /** No reply in time: the request may or may not have taken effect. */
  | { readonly status: 'timeout'; readonly msg: number }
  /** The connection was refused: the request definitely did not take effect. */
  | { readonly status: 'refused'; readonly msg: number };
