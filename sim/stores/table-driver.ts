import type { NodeRef, Script } from '../runtime/types.js';
import { acquireResult, askExists, stepResult } from './single-node-driver.js';
import { invalidTtl } from './memcached-driver.js';
import type { AcquireArgs, AcquireResult, ClientIo, ExistsResult, LeaseRef, LockDriver, LockOp, StepResult } from './protocol.js';

/** A request that carries the client's own clock reading, for tables whose expiry is computed by the client. */
export type ClientClockOp = LockOp & { readonly clientNowUs: number };

/** What differs between the table stores' client libraries. */
export interface TableLibrary {
  readonly store: string;
  readonly exception: string;
  /** The smallest TTL putOffExpiration() takes (PdoStore: 1 s), with the store's initial TTL saved before it is refused; none for MongoDB. */
  readonly minTtl?: { readonly minUs: number; readonly initialUs: number };
  /** false: rows never expire (a hand-written lock table), so a lease is believed until released. */
  readonly expires?: boolean;
}

/**
 * The client side of a lock table, one statement per request: Symfony's
 * INSERT-or-take-over to acquire, UPDATE ... WHERE token = mine OR expired to
 * refresh, DELETE ... WHERE token = mine to release, SELECT ... WHERE token =
 * mine AND not expired for exists(). With a client-clock table each
 * statement carries the client's reading, taken when it sends.
 */
export class TableDriver implements LockDriver {
  constructor(
    private node: NodeRef,
    private keyPrefix: string,
    private readonly clientClock: boolean,
    private readonly commands: { acquire: string; refresh: string; release: string; exists: string },
    readonly library: TableLibrary,
    private readonly nodeFor?: (patch: Record<string, unknown>) => NodeRef | undefined,
  ) {}

  /** `op`, made for this one request, with the client's clock written on where the store takes it from the client (not copied: a spread is dear per request). */
  private op<T extends LockOp>(io: ClientIo, op: T): LockOp {
    if (!this.clientClock) return op;
    (op as { clientNowUs?: number }).clientNowUs = io.localNow();
    return op as ClientClockOp;
  }

  *acquire(io: ClientIo, a: AcquireArgs): Script<AcquireResult> {
    // Lock::acquire() saves with the store's initial TTL, then refresh($ttl) refuses a TTL under the minimum: the row stays.
    const min = this.library.minTtl;
    const invalid = min !== undefined && a.ttlUs < min.minUs;
    const ttlUs = invalid ? min.initialUs : a.ttlUs;
    const op = this.op(io, { op: 'acquire', key: this.keyPrefix + a.key, owner: a.owner, ttlUs });
    const r = yield* io.request(this.node, op, 'acquire.request', {
      owner: a.owner,
      ttlUs: this.library.expires === false ? undefined : ttlUs,
      data: { attempt: a.attempt, command: this.commands.acquire },
    });
    const result = acquireResult(r, this.library.expires === false ? null : undefined);
    if (invalid && result.status === 'ok') return { status: 'invalid-ttl', msg: result.msg, reason: invalidTtl(a.ttlUs, this.library.store) };
    return result;
  }

  *refresh(io: ClientIo, lease: LeaseRef, ttlUs: number): Script<StepResult> {
    const min = this.library.minTtl;
    if (min !== undefined && ttlUs < min.minUs) return { status: 'invalid-ttl', msg: io.newMsg(), reason: invalidTtl(ttlUs, this.library.store) };
    const op = this.op(io, { op: 'refresh', key: this.keyPrefix + lease.key, owner: lease.owner, ttlUs });
    const r = yield* io.request(this.node, op, 'refresh.request', { owner: lease.owner, ttlUs, data: { command: this.commands.refresh } });
    return stepResult(r, `not the owner any more`);
  }

  *release(io: ClientIo, lease: LeaseRef, method: 'token-checked' | 'plain-del'): Script<StepResult> {
    const r = yield* io.request(this.node, { op: 'release', key: this.keyPrefix + lease.key, owner: lease.owner }, 'release.request', {
      owner: lease.owner,
      data: { method, command: this.commands.release },
    });
    return stepResult(r, 'not the owner');
  }

  *exists(io: ClientIo, lease: LeaseRef): Script<ExistsResult> {
    const op = this.op(io, { op: 'exists', key: this.keyPrefix + lease.key, owner: lease.owner });
    return yield* askExists(io, this.node, op, lease.owner, { command: this.commands.exists });
  }

  reconfigure(patch: Record<string, unknown>): void {
    if (typeof patch.keyPrefix === 'string') this.keyPrefix = patch.keyPrefix;
    this.node = this.nodeFor?.(patch) ?? this.node;
  }
}
