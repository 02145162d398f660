import type { Rng } from '../kernel/rng.js';
import type { CallResult, Effect, NodeRef, Script } from '../runtime/types.js';
import type { EventFields } from '../trace/recorder.js';

/*
 * The protocol between a lock client and its store, as the client side sees
 * it: requests, replies, and the driver interface. Client code (the
 * lifecycle and every driver) depends on this and sim/runtime only, never on
 * the simulated world, so a real runner can run it unchanged.
 */

/**
 * The requests a client's lock library sends to a store node. Each store
 * model answers the ones its real counterpart supports.
 */
export type LockOp =
  /**
   * Acquire. Idempotent for the same owner (a retry after a timeout must not
   * lock the owner out). `waitUs`, on stores that block natively, is how long
   * the server may hold the request until the lock frees (null: for ever);
   * undefined means try once.
   */
  | {
      readonly op: 'acquire';
      readonly key: string;
      readonly owner: string;
      readonly ttlUs: number;
      readonly shared?: boolean | undefined;
      readonly waitUs?: number | null | undefined;
    }
  /** Who holds the key, if anyone (the first half of the exists-then-set mistake). */
  | { readonly op: 'get'; readonly key: string }
  /** Unconditional set with expiry (the second half of exists-then-set). */
  | { readonly op: 'set'; readonly key: string; readonly owner: string; readonly ttlUs: number }
  /** Extend the lease if, and only if, the key still holds this owner's token. */
  | { readonly op: 'refresh'; readonly key: string; readonly owner: string; readonly ttlUs: number }
  /** Delete the key if, and only if, it holds this owner's token. */
  | { readonly op: 'release'; readonly key: string; readonly owner: string }
  /** Delete the key whoever holds it (the plain-DEL mistake). */
  | { readonly op: 'del'; readonly key: string; readonly owner: string }
  /** Whether the key still holds this owner's token (Symfony's `exists()`, behind `isAcquired()`); `ok` is the answer. */
  | { readonly op: 'exists'; readonly key: string; readonly owner: string; readonly shared?: boolean | undefined };

export interface LockReply {
  readonly ok: boolean;
  /** The fencing token of the granted lease, for stores that issue one. */
  readonly fence?: number | undefined;
  /** The current holder's owner token, or null when the key is free. */
  readonly holder?: string | null;
  /** Why a request failed, when it was not simply a conflict (e.g. "session expired"). */
  readonly error?: string;
}

/** Where a store's lock state lives and what it can do, as the Symfony Lock docs tabulate it. */
export interface Capabilities {
  readonly scope: 'local' | 'remote';
  /** The store can make a client wait for the lock (otherwise blocking acquires poll). */
  readonly blocking: boolean;
  /** Locks end by themselves after a TTL. */
  readonly expiring: boolean;
  /** Shared (read) locks. */
  readonly sharing: boolean;
  /**
   * Waiting for a shared lock in the store: `interface` when the store is a
   * BlockingSharedLockStoreInterface (acquireRead(true) waits there),
   * `method` when it only has a waitAndSaveRead() a script may call itself
   * (acquireRead(true) polls); absent when it has neither.
   */
  readonly blockingShared?: 'interface' | 'method';
  /** What the store offers as a fencing token, or null when it offers none. */
  readonly fencingToken: string | null;
  /** The ways a holder can lose the lock without releasing it. */
  readonly losesLockWhen: readonly string[];
}

/** One acquisition attempt, as the lifecycle asks a driver for it. */
export interface AcquireArgs {
  readonly key: string;
  readonly owner: string;
  readonly ttlUs: number;
  readonly shared: boolean;
  /** Natively blocking stores: how long to wait in the store (null: for ever). Undefined: try once. */
  readonly waitUs: number | null | undefined;
  readonly attempt: number;
}

export type AcquireResult =
  | {
      readonly status: 'ok';
      readonly msg: number;
      readonly fence?: number | undefined;
      /**
       * When the lease ends by the client's clock. Undefined: the request time
       * plus the TTL (as Symfony's Key computes it); null: the lock does not
       * expire (flock, advisory locks, sessions).
       */
      readonly expiresLocalUs?: number | null | undefined;
    }
  | { readonly status: 'denied'; readonly msg: number; readonly holder?: string | null | undefined; readonly reason?: string | undefined }
  | { readonly status: 'timeout' | 'refused' | 'error'; readonly msg: number; readonly reason?: string | undefined }
  /**
   * The store saved the key with its own initial TTL (300 s), and then
   * refused the TTL asked for (Memcached and PdoStore take no TTL under
   * 1 s): Symfony throws, and the key stays behind until the Lock releases
   * it or the initial TTL runs out.
   */
  | { readonly status: 'invalid-ttl'; readonly msg: number; readonly fence?: number | undefined; readonly reason: string };

/**
 * The answer to a refresh or a release. A refresh may say when the extended
 * lease ends by the client's clock (Redlock subtracts its drift allowance);
 * otherwise it is the request time plus the TTL.
 */
export type StepResult = {
  /** `invalid-ttl`: the store refuses the TTL before sending anything (Memcached, PdoStore: under 1 s). */
  readonly status: 'ok' | 'failed' | 'timeout' | 'refused' | 'error' | 'invalid-ttl';
  readonly msg: number;
  readonly reason?: string | undefined;
  readonly expiresLocalUs?: number | undefined;
  /**
   * A release that deleted nothing while the key still holds our token:
   * Lock::release() follows the store's delete() with exists(), and throws
   * LockReleasingException ("the resource is still locked") when it says yes.
   */
  readonly stillLocked?: true | undefined;
};

/**
 * The answer to `exists()`: whether the store still holds our token. Stores
 * whose Symfony class swallows errors here (Memcached, ZooKeeper, Combined)
 * answer `no`; the others let the error through, and `isAcquired()` throws it.
 */
export type ExistsResult =
  { readonly status: 'yes' | 'no'; readonly msg: number } | { readonly status: 'timeout' | 'refused' | 'error'; readonly msg: number; readonly reason: string };

/** A lease as a driver sees it when refreshing or releasing. */
export interface LeaseRef {
  readonly key: string;
  readonly owner: string;
  readonly fence: number | undefined;
}

/** What a driver may do on behalf of its client: talk to nodes, record client events, read the client's clock. */
export interface ClientIo {
  readonly client: string;
  readonly machine: string;
  readonly requestTimeoutUs: number;
  localNow(): number;
  /** A fresh message id for a request the driver sends itself. */
  newMsg(): number;
  /** Runs a background script in the client's process (heartbeats). */
  thread(script: Script<void>): void;
  /** Records a client event (with the client's current belief). */
  emit(kind: string, fields: EventFields): void;
  /**
   * Records `kind` for one request (peer and msg are added to `fields`) and
   * returns the call to yield; its result is what the yield gives back. A
   * driver that yields it itself saves the generator `request` costs on every
   * effect that passes through it.
   */
  send(node: NodeRef, op: LockOp, kind: string, fields: EventFields, timeoutLocalUs?: number): Effect;
  /** Sends one request, recording `kind` with `fields` (peer and msg are added), and waits for the result. */
  request(node: NodeRef, op: LockOp, kind: string, fields: EventFields, timeoutLocalUs?: number): Script<CallResult<LockReply>>;
  /** Sends one request to each node at once, recording `kind` for each, and waits for all results. */
  requestAll(
    calls: ReadonlyArray<{ node: NodeRef; op: LockOp }>,
    kind: string,
    fields: EventFields,
    timeoutLocalUs?: number,
  ): Script<Array<CallResult<LockReply>>>;
  /** The client's own seeded stream (jitter). */
  rng(): Rng;
}

/**
 * The client side of a store: what the lock library does for acquire,
 * refresh and release (one node, a quorum of nodes, a session...). The
 * lifecycle handles retries, polling, work, checks and writes around it.
 */
export interface LockDriver {
  /**
   * The Symfony store class this driver plays (RedisStore, PdoStore...), and
   * what its client library throws when a request fails (RedisException,
   * PDOException...): the root of the exception a script sees when Symfony
   * lets a store failure through.
   */
  readonly library: { readonly store: string; readonly exception: string };
  acquire(io: ClientIo, a: AcquireArgs): Script<AcquireResult>;
  /**
   * An acquire that is one request and its answer, in two halves: the call
   * to yield, and what its result means. A driver that offers them spares
   * every poll of a waiting client a generator; `acquire` must be the two
   * run in turn.
   */
  acquireCall?(io: ClientIo, a: AcquireArgs): Effect;
  acquireAnswer?(r: CallResult<LockReply>): AcquireResult;
  refresh(io: ClientIo, lease: LeaseRef, ttlUs: number): Script<StepResult>;
  /** `failed` is a release that deleted nothing: quiet when the key is no longer ours, LockReleasingException when it still is (`stillLocked`); the other failures throw LockReleasingException too. */
  release(io: ClientIo, lease: LeaseRef, method: 'token-checked' | 'plain-del'): Script<StepResult>;
  /** `exists()`: asks the store (or, for flock and semaphores, the library's own state) whether the lease is still ours. */
  exists(io: ClientIo, lease: LeaseRef & { readonly shared: boolean }): Script<ExistsResult>;
  /** The library's connection objects are destroyed as the process ends normally (a ZooKeeper session is closed then). */
  close?(io: ClientIo): Script<void>;
  /** The copy a forked child gets: the same connections and sessions, its own object. Stateless drivers share themselves. */
  fork?(): LockDriver;
  /** Plain GET and SET, for stores where the exists-then-set mistake can be made. */
  get?(io: ClientIo, key: string, owner: string, attempt: number): Script<{ result: CallResult<LockReply>; holder: string | null }>;
  set?(io: ClientIo, a: AcquireArgs): Script<AcquireResult>;
  /** A background thread the library starts when the client starts (session heartbeats, lease keep-alives). */
  background?(io: ClientIo): Script<void>;
  /** A deploy changed this client's store configuration (a different lock path, prefix or server). */
  reconfigure?(patch: Record<string, unknown>): void;
}

/** A write to the protected resource, with the writer's fencing token if its store gave one. */
export interface WriteRequest {
  readonly owner: string;
  readonly fence: number | undefined;
}

export interface WriteReply {
  readonly accepted: boolean;
  readonly highestFence: number | null;
}
