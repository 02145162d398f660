import type { CallResult, Effect, NodeRef, Script } from '../runtime/types.js';
import type { AcquireArgs, AcquireResult, ClientIo, ExistsResult, LeaseRef, LockDriver, LockOp, LockReply, StepResult } from './protocol.js';

/** The request of an acquire (see `SingleNodeDriver.acquireOp`). */
type AcquireOp = Extract<LockOp, { op: 'acquire' }>;

/** How long a request may wait in a blocking store: the wait plus the usual reply timeout. */
export function waitTimeoutUs(io: ClientIo, waitUs: number | null | undefined): number {
  if (waitUs === undefined) return io.requestTimeoutUs;
  // Waiting for ever is bounded by the run's budget: the timer is then never reached.
  if (waitUs === null) return Number.MAX_SAFE_INTEGER / 4;
  return waitUs + io.requestTimeoutUs;
}

/**
 * The data of the first attempts' requests, `{ attempt }`, made once and
 * frozen: a waiting client's every poll records one, and a run that keeps
 * its trace would keep a copy per poll. Events are never changed once
 * recorded, so they may share it.
 */
const ATTEMPT_DATA: ReadonlyArray<Readonly<{ attempt: number }>> = Array.from({ length: 256 }, (_, i) => Object.freeze({ attempt: i }));

function attemptData(attempt: number): Readonly<{ attempt: number }> {
  return ATTEMPT_DATA[attempt] ?? { attempt };
}

/** Turns the reply to an acquire into the driver's answer. */
export function acquireResult(r: CallResult<LockReply>, expiresLocalUs?: number | null): AcquireResult {
  if (r.status !== 'reply') return { status: r.status, msg: r.msg, reason: r.status };
  if (r.reply.ok) return { status: 'ok', msg: r.msg, fence: r.reply.fence, expiresLocalUs };
  if (r.reply.error !== undefined) return { status: 'error', msg: r.msg, reason: r.reply.error };
  return { status: 'denied', msg: r.msg, holder: r.reply.holder, reason: r.reply.error };
}

/** Turns the reply to an `exists` request into the driver's answer; a failed request stays a failure (Symfony lets it through). */
export function existsResult(r: CallResult<LockReply>): ExistsResult {
  if (r.status !== 'reply') return { status: r.status, msg: r.msg, reason: r.status };
  if (r.reply.error !== undefined) return { status: 'error', msg: r.msg, reason: r.reply.error };
  return { status: r.reply.ok ? 'yes' : 'no', msg: r.msg };
}

/** Sends Symfony's `exists()` for a lease as one request, recorded as `isAcquired.request`. */
export function* askExists(io: ClientIo, node: NodeRef, op: LockOp, owner: string, data?: Record<string, string | number | boolean>): Script<ExistsResult> {
  return existsResult(yield* io.request(node, op, 'isAcquired.request', { owner, data }));
}

export function stepResult(r: CallResult<LockReply>, failure: string): StepResult {
  if (r.status !== 'reply') return { status: r.status, msg: r.msg, reason: r.status };
  if (r.reply.ok) return { status: 'ok', msg: r.msg };
  return { status: 'failed', msg: r.msg, reason: r.reply.error ?? failure };
}

/**
 * The lock library of a store with one server that speaks LockOp: every
 * operation is one request to that node. `keyPrefix` is part of the key the
 * store sees (a deploy can change it), and `expires` says whether leases end
 * by themselves.
 */
export class SingleNodeDriver implements LockDriver {
  readonly library = { store: 'RedisStore', exception: 'RedisException' };
  /** The last acquire request, with the key and prefix it was made from (see `acquireOp`). */
  private lastAcquire: AcquireOp | undefined;
  private lastKey = '';
  private lastPrefix = '';

  constructor(
    private node: NodeRef,
    private keyPrefix: string,
    private readonly expires: boolean,
    /** A deploy that moves the client to another server names the node it now talks to. */
    private readonly nodeFor?: (patch: Record<string, unknown>) => NodeRef | undefined,
  ) {}

  private storeKey(key: string): string {
    return this.keyPrefix + key;
  }

  *acquire(io: ClientIo, a: AcquireArgs): Script<AcquireResult> {
    return this.acquireAnswer((yield this.acquireCall(io, a)) as CallResult<LockReply>);
  }

  acquireCall(io: ClientIo, a: AcquireArgs): Effect {
    const op = this.acquireOp(a);
    const data = a.waitUs === undefined ? attemptData(a.attempt) : { attempt: a.attempt, waitUs: a.waitUs ?? -1 };
    // `send` sets the peer and the message: named here, they are written in place rather than added to the object (a poll's every request).
    const fields = { owner: a.owner, ttlUs: this.expires ? a.ttlUs : undefined, peer: undefined, msg: undefined, data };
    return io.send(this.node, op, 'acquire.request', fields, waitTimeoutUs(io, a.waitUs));
  }

  /**
   * The request of an acquire: the last one again, frozen, when it asks the
   * same (a waiting client's polls differ only in their attempt number, which
   * the request does not carry).
   */
  private acquireOp(a: AcquireArgs): AcquireOp {
    const last = this.lastAcquire;
    if (
      last !== undefined &&
      last.owner === a.owner &&
      last.ttlUs === a.ttlUs &&
      last.shared === a.shared &&
      last.waitUs === a.waitUs &&
      this.lastKey === a.key &&
      this.lastPrefix === this.keyPrefix
    )
      return last;
    this.lastKey = a.key;
    this.lastPrefix = this.keyPrefix;
    return (this.lastAcquire = Object.freeze({ op: 'acquire', key: this.storeKey(a.key), owner: a.owner, ttlUs: a.ttlUs, shared: a.shared, waitUs: a.waitUs }));
  }

  acquireAnswer(r: CallResult<LockReply>): AcquireResult {
    return acquireResult(r, this.expires ? undefined : null);
  }

  *refresh(io: ClientIo, lease: LeaseRef, ttlUs: number): Script<StepResult> {
    const r = yield* io.request(this.node, { op: 'refresh', key: this.storeKey(lease.key), owner: lease.owner, ttlUs }, 'refresh.request', {
      owner: lease.owner,
      fence: lease.fence,
      ttlUs,
    });
    return stepResult(r, 'not the owner any more');
  }

  *release(io: ClientIo, lease: LeaseRef, method: 'token-checked' | 'plain-del'): Script<StepResult> {
    const key = this.storeKey(lease.key);
    const op: LockOp = method === 'plain-del' ? { op: 'del', key, owner: lease.owner } : { op: 'release', key, owner: lease.owner };
    const r = (yield io.send(this.node, op, 'release.request', { owner: lease.owner, data: { method } })) as CallResult<LockReply>;
    return stepResult(r, 'not the owner');
  }

  *exists(io: ClientIo, lease: LeaseRef & { readonly shared: boolean }): Script<ExistsResult> {
    return yield* askExists(io, this.node, { op: 'exists', key: this.storeKey(lease.key), owner: lease.owner, shared: lease.shared }, lease.owner);
  }

  /** Plain GET: only offered when the store kind says `plainGetSet`; the scenario check refuses it otherwise. */
  *get(io: ClientIo, key: string, owner: string, attempt: number): Script<{ result: CallResult<LockReply>; holder: string | null }> {
    const result = yield* io.request(this.node, { op: 'get', key: this.storeKey(key) }, 'exists.request', { owner, data: { attempt } });
    return { result, holder: result.status === 'reply' ? (result.reply.holder ?? null) : null };
  }

  *set(io: ClientIo, a: AcquireArgs): Script<AcquireResult> {
    const r = yield* io.request(this.node, { op: 'set', key: this.storeKey(a.key), owner: a.owner, ttlUs: a.ttlUs }, 'acquire.request', {
      owner: a.owner,
      ttlUs: a.ttlUs,
      data: { attempt: a.attempt, method: 'set' },
    });
    return acquireResult(r);
  }

  reconfigure(patch: Record<string, unknown>): void {
    if (typeof patch.keyPrefix === 'string') this.keyPrefix = patch.keyPrefix;
    this.node = this.nodeFor?.(patch) ?? this.node;
  }
}
