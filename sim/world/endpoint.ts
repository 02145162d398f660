import type { CallResult } from '../runtime/types.js';
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

export type { CallResult };
