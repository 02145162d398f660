import { call, type CallResult, type NodeRef, type Script } from '../runtime/types.js';
import { acquireResult, stepResult, waitTimeoutUs } from './single-node-driver.js';
import type { AcquireArgs, AcquireResult, ClientIo, LeaseRef, LockDriver, LockOp, LockReply, StepResult } from './protocol.js';

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
}

/**
 * The client library of a session store. It opens a session for an
 * acquisition and closes it once it holds nothing — the way a short-lived
 * worker (a PHP request, `etcdctl lock`) connects, locks, works, unlocks and
 * exits. While the session is open a heartbeat thread in the client's process
 * pings every third of the timeout, so a paused process stops pinging and a
 * pause longer than the timeout ends the session. A reply saying the session
 * has ended is recorded as `session.lost`; the belief in the lock ends only at
 * the lifecycle's next call into the driver, whose request then fails.
 */
export class SessionDriver implements LockDriver {
  private session: ClientSession | undefined;
  private opened = 0;

  constructor(
    private readonly node: NodeRef,
    private readonly opts: SessionDriverOptions,
  ) {}

  private open(io: ClientIo): ClientSession {
    const current = this.session;
    if (current !== undefined && current.open) return current;
    const s: ClientSession = { id: `${io.client}#${++this.opened}`, fresh: true, open: true };
    this.session = s;
    io.thread(this.heartbeat(io, s));
    return s;
  }

  private op(s: ClientSession): { session: string; fresh: boolean; timeoutUs: number } {
    return { session: s.id, fresh: s.fresh, timeoutUs: this.opts.timeoutUs };
  }

  /** Notes what a reply says about the session; true when it says the session is gone. */
  private heard(io: ClientIo, s: ClientSession, r: CallResult<LockReply>, owner: string | undefined): void {
    if (r.status !== 'reply') return;
    s.fresh = false;
    if (r.reply.error === `${this.opts.word} expired` && s.open) {
      s.open = false;
      io.emit('session.lost', { owner, peer: this.node.name, msg: r.msg, reason: `${this.opts.word} expired`, data: { what: this.opts.word, session: s.id } });
    }
  }

  /** Closes `s` without waiting for the answer (a thread of its own), when the lifecycle has moved on. */
  private abandon(io: ClientIo, s: ClientSession): void {
    if (!s.open) return;
    s.open = false;
    const node = this.node;
    const op = { op: 'close', ...this.op(s) };
    io.thread(
      (function* (): Script<void> {
        yield* call(node.name, op, io.requestTimeoutUs, io.newMsg());
      })(),
    );
  }

  private *heartbeat(io: ClientIo, s: ClientSession): Script<void> {
    for (;;) {
      yield { k: 'sleep', localUs: this.opts.pingEveryUs };
      if (!s.open) return;
      const op = { op: 'ping', ...this.op(s) } as unknown as LockOp;
      const r = yield* call<LockReply>(this.node.name, op, this.opts.pingEveryUs, io.newMsg());
      if (!s.open) return;
      this.heard(io, s, r, undefined);
    }
  }

  *acquire(io: ClientIo, a: AcquireArgs): Script<AcquireResult> {
    const s = this.open(io);
    const op = { op: 'acquire', key: a.key, owner: a.owner, ttlUs: a.ttlUs, waitUs: a.waitUs, ...this.op(s), endIfDenied: true } as const;
    const data = a.waitUs === undefined ? { attempt: a.attempt } : { attempt: a.attempt, waitUs: a.waitUs ?? -1 };
    const r = yield* io.request(this.node, op as LockOp, 'acquire.request', { owner: a.owner, data }, waitTimeoutUs(io, a.waitUs));
    this.heard(io, s, r, a.owner);
    if (r.status === 'reply' && !r.reply.ok) s.open = false;
    // No answer: the key may exist; closing the session deletes it either way.
    else if (r.status !== 'reply') this.abandon(io, s);
    // The lock lasts as long as the session; the client tracks no expiry of its own.
    return acquireResult(r, null);
  }

  *refresh(io: ClientIo, lease: LeaseRef, ttlUs: number): Script<StepResult> {
    const s = this.session ?? this.open(io);
    const op = { op: 'refresh', key: lease.key, owner: lease.owner, ttlUs, ...this.op(s) } as const;
    const r = yield* io.request(this.node, op as LockOp, 'refresh.request', { owner: lease.owner, fence: lease.fence });
    this.heard(io, s, r, lease.owner);
    return stepResult(r, 'the key is gone');
  }

  *release(io: ClientIo, lease: LeaseRef, _method: 'token-checked' | 'plain-del'): Script<StepResult> {
    const s = this.session ?? this.open(io);
    const op = { op: 'release', key: lease.key, owner: lease.owner, ...this.op(s), end: true } as const;
    const r = yield* io.request(this.node, op as LockOp, 'release.request', { owner: lease.owner, data: { method: 'token-checked' } });
    this.heard(io, s, r, lease.owner);
    if (r.status === 'reply') s.open = false;
    else this.abandon(io, s);
    if (this.session === s) this.session = undefined;
    return stepResult(r, 'the key is gone');
  }
}
