import type { CallResult, NodeRef, Script } from '../runtime/types.js';
import { acquireResult, stepResult, waitTimeoutUs } from './single-node-driver.js';
import type { AcquireArgs, AcquireResult, ClientIo, LeaseRef, LockDriver, LockOp, LockReply, StepResult } from './protocol.js';

/** A request on one of the client's connections: `fresh` opens it (connect and query in one round trip). */
export type PgOp = LockOp & { readonly conn: string; readonly fresh: boolean };

interface Connection {
  readonly id: string;
  /** No reply has come on it yet, so the server may not know it: requests carry `fresh`. */
  fresh: boolean;
}

/** What a client hears once the server has dropped its connection. */
export const CONNECTION_LOST = 'connection lost';

/**
 * The client side: one connection per client process, kept open across
 * acquisitions like a PDO handle. Locks never expire, so a lease is believed
 * until released (`expiresLocalUs: null`). A query that finds the connection
 * dead fails with "connection lost"; the driver records that it learned so
 * and connects afresh on its next call, as a reconnecting PDO wrapper does.
 */
export class PostgresDriver implements LockDriver {
  private conn: Connection | undefined;
  private connections = 0;

  constructor(private readonly node: NodeRef) {}

  private connection(io: ClientIo): Connection {
    if (this.conn === undefined) this.conn = { id: `${io.client}#${++this.connections}`, fresh: true };
    return this.conn;
  }

  /** Notes what a reply says about the connection. */
  private heard(io: ClientIo, c: Connection, r: CallResult<LockReply>, owner: string): void {
    if (r.status === 'refused') {
      // The server is down: the connection is gone with it.
      if (this.conn === c) this.conn = undefined;
      return;
    }
    if (r.status !== 'reply') return;
    c.fresh = false;
    if (r.reply.error === CONNECTION_LOST && this.conn === c) {
      this.conn = undefined;
      io.emit('session.lost', { owner, peer: this.node.name, msg: r.msg, reason: CONNECTION_LOST, data: { what: 'connection', conn: c.id } });
    }
  }

  *acquire(io: ClientIo, a: AcquireArgs): Script<AcquireResult> {
    const c = this.connection(io);
    const op: PgOp = { op: 'acquire', key: a.key, owner: a.owner, ttlUs: a.ttlUs, shared: a.shared, waitUs: a.waitUs, conn: c.id, fresh: c.fresh };
    const data: Record<string, number | boolean> = a.waitUs === undefined ? { attempt: a.attempt } : { attempt: a.attempt, waitUs: a.waitUs ?? -1 };
    if (a.shared) data.shared = true;
    const r = yield* io.request(this.node, op, 'acquire.request', { owner: a.owner, data }, waitTimeoutUs(io, a.waitUs));
    this.heard(io, c, r, a.owner);
    return acquireResult(r, null);
  }

  *refresh(io: ClientIo, lease: LeaseRef, ttlUs: number): Script<StepResult> {
    const c = this.connection(io);
    const op: PgOp = { op: 'refresh', key: lease.key, owner: lease.owner, ttlUs, conn: c.id, fresh: c.fresh };
    const r = yield* io.request(this.node, op, 'refresh.request', { owner: lease.owner });
    this.heard(io, c, r, lease.owner);
    return stepResult(r, 'this session no longer holds the lock');
  }

  *release(io: ClientIo, lease: LeaseRef, _method: 'token-checked' | 'plain-del'): Script<StepResult> {
    const c = this.connection(io);
    const op: PgOp = { op: 'release', key: lease.key, owner: lease.owner, conn: c.id, fresh: c.fresh };
    const r = yield* io.request(this.node, op, 'release.request', { owner: lease.owner, data: { method: 'token-checked' } });
    this.heard(io, c, r, lease.owner);
    return stepResult(r, 'this session does not hold the lock');
  }
}
