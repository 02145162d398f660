import type { Endpoint } from '../world/endpoint.js';

/**
 * The requests a client's lock library sends to a store node. Each store
 * model answers the ones its real counterpart supports.
 */
export type LockOp =
  /** Atomic acquire (Redis: SET NX PX in a script that also hands out the fencing token). Idempotent for the same owner. */
  | { readonly op: 'acquire'; readonly key: string; readonly owner: string; readonly ttlUs: number }
  /** Who holds the key, if anyone (the first half of the exists-then-set mistake). */
  | { readonly op: 'get'; readonly key: string }
  /** Unconditional set with expiry (the second half of exists-then-set). */
  | { readonly op: 'set'; readonly key: string; readonly owner: string; readonly ttlUs: number }
  /** Extend the lease if, and only if, the key still holds this owner's token. */
  | { readonly op: 'refresh'; readonly key: string; readonly owner: string; readonly ttlUs: number }
  /** Delete the key if, and only if, it holds this owner's token. */
  | { readonly op: 'release'; readonly key: string; readonly owner: string }
  /** Delete the key whoever holds it (the plain-DEL mistake). */
  | { readonly op: 'del'; readonly key: string; readonly owner: string };

export interface LockReply {
  readonly ok: boolean;
  /** The fencing token of the granted lease, for stores that issue one. */
  readonly fence?: number;
  /** The current holder's owner token, or null when the key is free. */
  readonly holder?: string | null;
}

/** A node of a lock store: an endpoint clients talk to, which a fault can restart. */
export interface StoreNode extends Endpoint<LockOp, LockReply> {
  restart(downUs: number): void;
}

/** Where a store's lock state lives and what it can do, as the Symfony Lock docs tabulate it. */
export interface Capabilities {
  readonly scope: 'local' | 'remote';
  readonly blocking: boolean;
  readonly expiring: boolean;
  readonly sharing: boolean;
  /** What the store offers as a fencing token, or null when it offers none. */
  readonly fencingToken: string | null;
  /** The ways a holder can lose the lock without releasing it. */
  readonly losesLockWhen: readonly string[];
}
