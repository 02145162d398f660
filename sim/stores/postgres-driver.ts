import type { CallResult, NodeRef, Script } from '../runtime/types.js';
import { acquireResult, existsResult, stepResult, waitTimeoutUs } from './single-node-driver.js';
import type { AcquireArgs, AcquireResult, ClientIo, ExistsResult, LeaseRef, LockDriver, LockOp, LockReply, StepResult } from './protocol.js';

/** A request on one of the client's connections: `fresh` opens it (connect and query in one round trip). */
export type PgOp = LockOp & { readonly conn: string; readonly fresh: boolean };

interface Connection {
  readonly id: string;
  /** No reply has come on it yet, so the server may not know it: requests carry `fresh`. */
  fresh: boolean;
  /** The server dropped it (a terminated backend, a restart): PDO keeps the dead handle. */
  dead: boolean;
}

/** What a client hears once the server has dropped its connection. */
export const CONNECTION_LOST = 'connection lost';
/** What libpq answers every later query on a connection it knows is closed, without sending anything. */
export const NO_CONNECTION = 'no connection to the server';

/**
 * The client side of Symfony's PostgreSqlStore: one PDO connection per
 * process, made at its first query and kept for the rest of it. Locks never
 * expire, so a lease is believed until released (`expiresLocalUs: null`).
 * PostgreSqlStore does not reconnect: once a query has found the connection
 * dead (the backend was terminated, the server restarted), that query and
 * every later one throw a PDOException, which acquire() and refresh() wrap
 * in LockAcquiringException, release() in LockReleasingException, and
 * isAcquired() lets through.
 */
export class PostgresDriver implements LockDriver {
  readonly library = { store: 'PostgreSqlStore', exception: 'PDOException' };
  private conn: Connection | undefined;
  private connections = 0;

  constructor(
    private node: NodeRef,
    private readonly nodeFor?: (patch: Record<string, unknown>) => NodeRef | undefined,
    shared?: { conn: Connection | undefined; connections: number },
  ) {
    if (shared !== undefined) {
      this.conn = shared.conn;
      this.connections = shared.connections;
    }
  }

  private connection(io: ClientIo): Connection {
    if (this.conn === undefined) this.conn = { id: `${io.client}#${++this.connections}`, fresh: true, dead: false };
    return this.conn;
  }

  /** Notes what a reply says about the connection. */
  private heard(io: ClientIo, c: Connection, r: CallResult<LockReply>, owner: string): void {
    if (r.status === 'refused') {
      // The server is down: the connection is gone with it, for good.
      c.dead = true;
      return;
    }
    if (r.status !== 'reply') return;
    c.fresh = false;
    if (r.reply.error === CONNECTION_LOST && !c.dead) {
      c.dead = true;
      io.emit('session.lost', { owner, peer: this.node.name, msg: r.msg, reason: CONNECTION_LOST, data: { what: 'connection', conn: c.id } });
    }
  }

  /** Sends `op` on the connection, or fails at once when the connection is known dead. */
  private *query(
    io: ClientIo,
    op: LockOp,
    kind: string,
    owner: string,
    data: Record<string, number | boolean | string>,
    timeoutUs?: number,
  ): Script<CallResult<LockReply>> {
    const c = this.connection(io);
    if (c.dead) return { status: 'reply', reply: { ok: false, error: NO_CONNECTION }, msg: io.newMsg() };
    // Each caller makes `op` for this one request: it is sent with the connection written on, not copied (a spread cost a tenth of a run).
    const on = op as { conn?: string; fresh?: boolean };
    on.conn = c.id;
    on.fresh = c.fresh;
    const r = yield* io.request(this.node, op, kind, { owner, data }, timeoutUs);
    this.heard(io, c, r, owner);
    return r;
  }

  *acquire(io: ClientIo, a: AcquireArgs): Script<AcquireResult> {
    const op: LockOp = { op: 'acquire', key: a.key, owner: a.owner, ttlUs: a.ttlUs, shared: a.shared, waitUs: a.waitUs };
    const data: Record<string, number | boolean> = a.waitUs === undefined ? { attempt: a.attempt } : { attempt: a.attempt, waitUs: a.waitUs ?? -1 };
    if (a.shared) data.shared = true;
    const r = yield* this.query(io, op, 'acquire.request', a.owner, data, waitTimeoutUs(io, a.waitUs));
    return acquireResult(r, null);
  }

  /** putOffExpiration(): advisory locks never expire, so it only checks pg_locks for this backend. */
  *refresh(io: ClientIo, lease: LeaseRef, ttlUs: number): Script<StepResult> {
    const r = yield* this.query(io, { op: 'refresh', key: lease.key, owner: lease.owner, ttlUs }, 'refresh.request', lease.owner, {});
    if (r.status === 'reply' && r.reply.error !== undefined) return { status: 'error', msg: r.msg, reason: r.reply.error };
    return stepResult(r, 'this session no longer holds the lock');
  }

  *release(io: ClientIo, lease: LeaseRef, _method: 'token-checked' | 'plain-del'): Script<StepResult> {
    const r = yield* this.query(io, { op: 'release', key: lease.key, owner: lease.owner }, 'release.request', lease.owner, { method: 'token-checked' });
    if (r.status === 'reply' && r.reply.error !== undefined) return { status: 'error', msg: r.msg, reason: r.reply.error };
    return stepResult(r, 'this session does not hold the lock');
  }

  *exists(io: ClientIo, lease: LeaseRef & { readonly shared: boolean }): Script<ExistsResult> {
    return existsResult(
      yield* this.query(io, { op: 'exists', key: lease.key, owner: lease.owner, shared: lease.shared }, 'isAcquired.request', lease.owner, {}),
    );
  }

  /** A forked child shares the parent's socket, and with it the backend and its locks. */
  fork(): LockDriver {
    return new PostgresDriver(this.node, this.nodeFor, { conn: this.conn, connections: this.connections });
  }

  reconfigure(patch: Record<string, unknown>): void {
    const next = this.nodeFor?.(patch);
    if (next === undefined) return;
    // A new server is a new connection.
    this.node = next;
    this.conn = undefined;
  }
}
