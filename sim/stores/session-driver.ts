import { callEffect, type CallResult, type Effect, type NodeRef, type Script } from '../runtime/types.js';
import { acquireResult, stepResult, waitTimeoutUs } from './single-node-driver.js';
import type { AcquireArgs, AcquireResult, ClientIo, ExistsResult, LeaseRef, LockDriver, LockOp, LockReply, StepResult } from './protocol.js';

/** A request on a session: `fresh` opens it with `timeoutUs`, `endIfDenied` and `end` close it afterwards. */
export type SessionOp =
  | (LockOp & {
      readonly session: string;
      readonly fresh: boolean;
      readonly timeoutUs: number;
      /** Close the session when the acquire does not end holding the lock (the library holds nothing else with it). */
      readonly endIfDenied?: boolean;
      /** Close the session after this request (a release: the worker is done with it). */
      readonly end?: boolean;
    })
  | { readonly op: 'ping'; readonly session: string; readonly fresh: boolean; readonly timeoutUs: number }
  | { readonly op: 'close'; readonly session: string; readonly fresh: boolean; readonly timeoutUs: number };

interface ClientSession {
  readonly id: string;
  /** No reply has come yet, so the server may not know it: requests carry `fresh`. */
  fresh: boolean;
  /** False once closed or known to have ended; its heartbeat thread stops. */
  open: boolean;
}

export interface SessionDriverOptions {
  /** The session timeout (ZooKeeper) or lease TTL (etcd) the client asks for. */
  readonly timeoutUs: number;
  /** How often the library pings (a third of the timeout for both libraries). */
  readonly pingEveryUs: number;
  readonly word: string;
  /**
   * Symfony's ZookeeperStore: refresh does nothing (the node lives as long as
   * the session), and exists() and delete() swallow the client's errors
   * (exists says false, so delete does nothing).
   */
  readonly symfony: boolean;
}

/** Where the library stands: its session and the server of the ensemble it talks to. Shared with a forked child. */
interface Connection {
  session: ClientSession | undefined;
  opened: number;
  server: number;
}

/**
 * The client library of a session store. It opens a session for an
 * acquisition and closes it once it holds nothing — the way a short-lived
 * worker (a PHP request, `etcdctl lock`) connects, locks, works, unlocks and
 * exits — and closes what is still open when the process ends normally
 * (the Zookeeper object's destructor); a killed process closes nothing, so
 * its session lives on until it times out. While the session is open a
 * heartbeat thread in the client's process pings every third of the
 * timeout, so a paused process stops pinging and a pause longer than the
 * timeout ends the session. A reply saying the session has ended is
 * recorded as `session.lost`; the belief in the lock ends only at the
 * script's next call into the driver, whose request then fails. With an
 * ensemble, a server that refuses the connection makes the library move on
 * to the next one in its list (the call that found it down fails).
 * Each request writes the session's fields (session, fresh, timeoutUs)
 * out rather than spreading them from a helper: a spread per request was a
 * cost a run could measure.
 */
export class SessionDriver implements LockDriver {
  private readonly conn: Connection;
  /** The acquire in flight, between `acquireCall` and `acquireAnswer`. */
  private asking: { readonly io: ClientIo; readonly s: ClientSession; readonly owner: string } | undefined;

  constructor(
    private servers: readonly NodeRef[],
    private opts: SessionDriverOptions,
    readonly library: { readonly store: string; readonly exception: string },
    private readonly reconfigureWith?: (patch: Record<string, unknown>) => { servers?: readonly NodeRef[]; timeoutUs?: number } | undefined,
    conn?: Connection,
  ) {
    this.conn = conn ?? { session: undefined, opened: 0, server: 0 };
  }

  private get node(): NodeRef {
    return this.servers[this.conn.server % this.servers.length]!;
  }

  private open(io: ClientIo): ClientSession {
    const current = this.conn.session;
    if (current !== undefined && current.open) return current;
    const s: ClientSession = { id: `${io.client}#${++this.conn.opened}`, fresh: true, open: true };
    this.conn.session = s;
    io.thread(this.heartbeat(io, s));
    return s;
  }

  /** Notes what a reply says about the session and the server. */
  private heard(io: ClientIo, s: ClientSession, r: CallResult<LockReply>, owner: string | undefined): void {
    if (r.status === 'refused') {
      // The server is down: the library reconnects to the next one (the same one, without an ensemble).
      this.conn.server = (this.conn.server + 1) % this.servers.length;
      return;
    }
    if (r.status !== 'reply') return;
    s.fresh = false;
    if (r.reply.error === `${this.opts.word} expired` && s.open) {
      s.open = false;
      io.emit('session.lost', { owner, peer: this.node.name, msg: r.msg, reason: `${this.opts.word} expired`, data: { what: this.opts.word, session: s.id } });
    }
  }

  /** Closes `s` without waiting for the answer (a thread of its own), when the script has moved on. */
  private abandon(io: ClientIo, s: ClientSession): void {
    if (!s.open) return;
    s.open = false;
    const node = this.node;
    const op = { op: 'close', session: s.id, fresh: s.fresh, timeoutUs: this.opts.timeoutUs };
    io.thread(
      (function* (): Script<void> {
        yield callEffect(node.name, op, io.requestTimeoutUs, io.newMsg());
      })(),
    );
  }

  private *heartbeat(io: ClientIo, s: ClientSession): Script<void> {
    for (;;) {
      yield { k: 'sleep', localUs: this.opts.pingEveryUs };
      if (!s.open) return;
      const op = { op: 'ping', session: s.id, fresh: s.fresh, timeoutUs: this.opts.timeoutUs } as unknown as LockOp;
      const r = (yield callEffect(this.node.name, op, this.opts.pingEveryUs, io.newMsg())) as CallResult<LockReply>;
      if (!s.open) return;
      this.heard(io, s, r, undefined);
    }
  }

  *acquire(io: ClientIo, a: AcquireArgs): Script<AcquireResult> {
    return this.acquireAnswer((yield this.acquireCall(io, a)) as CallResult<LockReply>);
  }

  /** The acquire request, yielded by the script itself (see `LockDriver.acquireCall`); what its answer needs is kept until it comes. */
  acquireCall(io: ClientIo, a: AcquireArgs): Effect {
    const s = this.open(io);
    const op = {
      op: 'acquire',
      key: a.key,
      owner: a.owner,
      ttlUs: a.ttlUs,
      waitUs: a.waitUs,
      session: s.id,
      fresh: s.fresh,
      timeoutUs: this.opts.timeoutUs,
      endIfDenied: true,
    } as const;
    const data = a.waitUs === undefined ? { attempt: a.attempt } : { attempt: a.attempt, waitUs: a.waitUs ?? -1 };
    // One acquire is in flight at a time: the client's script waits for its answer.
    this.asking = { io, s, owner: a.owner };
    return io.send(this.node, op as LockOp, 'acquire.request', { owner: a.owner, data }, waitTimeoutUs(io, a.waitUs));
  }

  acquireAnswer(r: CallResult<LockReply>): AcquireResult {
    const { io, s, owner } = this.asking!;
    this.asking = undefined;
    this.heard(io, s, r, owner);
    if (r.status === 'reply' && !r.reply.ok) s.open = false;
    // No answer: the key may exist; closing the session deletes it either way.
    else if (r.status !== 'reply') this.abandon(io, s);
    // The lock lasts as long as the session; the client tracks no expiry of its own.
    return acquireResult(r, null);
  }

  *refresh(io: ClientIo, lease: LeaseRef, ttlUs: number): Script<StepResult> {
    // ZookeeperStore::putOffExpiration(): "do nothing, zookeeper locks forever".
    if (this.opts.symfony) return { status: 'ok', msg: io.newMsg() };
    const s = this.conn.session ?? this.open(io);
    const op = { op: 'refresh', key: lease.key, owner: lease.owner, ttlUs, session: s.id, fresh: s.fresh, timeoutUs: this.opts.timeoutUs } as const;
    const r = (yield io.send(this.node, op as LockOp, 'refresh.request', { owner: lease.owner, fence: lease.fence })) as CallResult<LockReply>;
    this.heard(io, s, r, lease.owner);
    return stepResult(r, 'the key is gone');
  }

  *release(io: ClientIo, lease: LeaseRef, _method: 'token-checked' | 'plain-del'): Script<StepResult> {
    const s = this.conn.session ?? this.open(io);
    const op = { op: 'release', key: lease.key, owner: lease.owner, session: s.id, fresh: s.fresh, timeoutUs: this.opts.timeoutUs, end: true } as const;
    const r = (yield io.send(this.node, op as LockOp, 'release.request', { owner: lease.owner, data: { method: 'token-checked' } })) as CallResult<LockReply>;
    this.heard(io, s, r, lease.owner);
    if (r.status === 'reply') s.open = false;
    else this.abandon(io, s);
    if (this.conn.session === s) this.conn.session = undefined;
    const result = stepResult(r, 'the key is gone');
    // ZookeeperStore::delete() asks exists() first, which says false on any error: then it deletes nothing, quietly.
    if (this.opts.symfony && result.status !== 'ok') return { status: 'failed', msg: result.msg, reason: result.reason };
    return result;
  }

  *exists(io: ClientIo, lease: LeaseRef): Script<ExistsResult> {
    const s = this.conn.session;
    // A get needs a connection, not a session of ours: without one the library's handle reconnects with a new session.
    const mine = s !== undefined && s.open;
    const op = {
      op: 'exists',
      key: lease.key,
      owner: lease.owner,
      session: mine ? s.id : `${io.client}#get${this.conn.opened}`,
      fresh: mine ? s.fresh : true,
      timeoutUs: this.opts.timeoutUs,
    } as const;
    const r = (yield io.send(this.node, op as LockOp, 'isAcquired.request', { owner: lease.owner })) as CallResult<LockReply>;
    if (mine) this.heard(io, s, r, lease.owner);
    else if (r.status === 'refused') this.conn.server = (this.conn.server + 1) % this.servers.length;
    if (r.status === 'reply' && r.reply.error === undefined) return { status: r.reply.ok ? 'yes' : 'no', msg: r.msg };
    if (this.opts.symfony) return { status: 'no', msg: r.msg };
    return r.status === 'reply' ? { status: 'error', msg: r.msg, reason: r.reply.error ?? 'error' } : { status: r.status, msg: r.msg, reason: r.status };
  }

  /** The process ends normally: the library's destructor closes its session, and the server deletes its nodes at once. */
  *close(io: ClientIo): Script<void> {
    const s = this.conn.session;
    if (s === undefined || !s.open) return;
    s.open = false;
    this.conn.session = undefined;
    yield callEffect(this.node.name, { op: 'close', session: s.id, fresh: s.fresh, timeoutUs: this.opts.timeoutUs }, io.requestTimeoutUs, io.newMsg());
  }

  /** A forked child shares the parent's handle: the same connection and session. */
  fork(): LockDriver {
    return new SessionDriver(this.servers, this.opts, this.library, this.reconfigureWith, this.conn);
  }

  reconfigure(patch: Record<string, unknown>): void {
    const next = this.reconfigureWith?.(patch);
    if (next === undefined) return;
    if (next.servers !== undefined) {
      this.servers = next.servers;
      this.conn.server = 0;
      // Another ensemble knows nothing of our session: the next call opens a new one.
      if (this.conn.session !== undefined) this.conn.session.open = false;
      this.conn.session = undefined;
    }
    if (next.timeoutUs !== undefined) this.opts = { ...this.opts, timeoutUs: next.timeoutUs, pingEveryUs: Math.floor(next.timeoutUs / 3) };
  }
}
