import type { NodeRef, Script } from '../runtime/types.js';
import { acquireResult, stepResult } from './single-node-driver.js';
import type { AcquireArgs, AcquireResult, ClientIo, LeaseRef, LockDriver, LockOp, StepResult } from './protocol.js';

/** A request that carries the client's own clock reading, for tables whose expiry is computed by the client. */
export type ClientClockOp = LockOp & { readonly clientNowUs: number };

/**
 * The client side of a lock table, one statement per request: Symfony's
 * INSERT-or-take-over to acquire, UPDATE ... WHERE token = mine OR expired to
 * refresh, DELETE ... WHERE token = mine to release. With a client-clock
 * table each statement carries the client's reading, taken when it sends.
 */
export class TableDriver implements LockDriver {
  constructor(
    private readonly node: NodeRef,
    private keyPrefix: string,
    private readonly clientClock: boolean,
    private readonly commands: { acquire: string; refresh: string; release: string },
  ) {}

  private op<T extends LockOp>(io: ClientIo, op: T): LockOp {
    if (!this.clientClock) return op;
    const withClock: ClientClockOp = { ...op, clientNowUs: io.localNow() };
    return withClock;
  }

  *acquire(io: ClientIo, a: AcquireArgs): Script<AcquireResult> {
    const op = this.op(io, { op: 'acquire', key: this.keyPrefix + a.key, owner: a.owner, ttlUs: a.ttlUs });
    const r = yield* io.request(this.node, op, 'acquire.request', {
      owner: a.owner,
      ttlUs: a.ttlUs,
      data: { attempt: a.attempt, command: this.commands.acquire },
    });
    return acquireResult(r);
  }

  *refresh(io: ClientIo, lease: LeaseRef, ttlUs: number): Script<StepResult> {
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

  reconfigure(patch: Record<string, unknown>): void {
    if (typeof patch.keyPrefix === 'string') this.keyPrefix = patch.keyPrefix;
  }
}
