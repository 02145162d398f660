import type { CallResult, NodeRef, Script } from '../runtime/types.js';
import { US_PER_S } from '../time.js';
import { acquireResult } from './single-node-driver.js';
import type { AcquireArgs, AcquireResult, ClientIo, LeaseRef, LockDriver, LockOp, LockReply, StepResult } from './protocol.js';

/** `cas`: store only if the item has not changed since the `gets` that returned `casId`. */
export type CasCommand = Extract<LockOp, { op: 'refresh' }> & { readonly casId: number };

/** The reply to `gets` carries the item's CAS unique. */
export interface MemcachedReply extends LockReply {
  readonly casId?: number;
}

export type PutOff =
  { status: 'ok'; msg: number } | { status: 'conflict'; msg: number; holder: string | null; why: string } | { status: 'timeout' | 'refused'; msg: number };

/** Symfony's release extends the item to 2 s with `cas` before deleting it, so nobody can slip in between. */
const RELEASE_CAS_TTL_US = 2 * US_PER_S;

function step(r: CallResult<LockReply>, failure: string): StepResult {
  if (r.status !== 'reply') return { status: r.status, msg: r.msg, reason: r.status };
  return r.reply.ok ? { status: 'ok', msg: r.msg } : { status: 'failed', msg: r.msg, reason: r.reply.error ?? failure };
}

/**
 * Symfony's MemcachedStore on the client side: `add` to acquire; when that
 * fails ("it could be us") and to refresh, putOffExpiration: `gets`, compare
 * the token, `cas`; to release, `gets`, compare, `cas` to 2 s, `delete`.
 * Every command is one request, so each takes a round trip and the item can
 * change between them.
 */
export class MemcachedDriver implements LockDriver {
  constructor(
    private readonly node: NodeRef,
    private keyPrefix: string,
  ) {}

  *acquire(io: ClientIo, a: AcquireArgs): Script<AcquireResult> {
    const key = this.keyPrefix + a.key;
    const r = yield* io.request(this.node, { op: 'acquire', key, owner: a.owner, ttlUs: a.ttlUs }, 'acquire.request', {
      owner: a.owner,
      ttlUs: a.ttlUs,
      data: { attempt: a.attempt, command: 'add' },
    });
    if (r.status !== 'reply' || r.reply.ok) return acquireResult(r);
    const p = yield* this.putOff(io, key, a.owner, a.ttlUs, 'acquire.request', a.attempt);
    if (p.status === 'ok') return { status: 'ok', msg: p.msg };
    if (p.status === 'conflict') return { status: 'denied', msg: p.msg, holder: p.holder };
    return { status: p.status, msg: p.msg, reason: p.status };
  }

  *refresh(io: ClientIo, lease: LeaseRef, ttlUs: number): Script<StepResult> {
    const p = yield* this.putOff(io, this.keyPrefix + lease.key, lease.owner, ttlUs, 'refresh.request', undefined);
    if (p.status === 'ok') return { status: 'ok', msg: p.msg };
    if (p.status === 'conflict') return { status: 'failed', msg: p.msg, reason: p.why };
    return { status: p.status, msg: p.msg, reason: p.status };
  }

  *release(io: ClientIo, lease: LeaseRef, method: 'token-checked' | 'plain-del'): Script<StepResult> {
    const key = this.keyPrefix + lease.key;
    if (method === 'plain-del') {
      const d = yield* io.request(this.node, { op: 'del', key, owner: lease.owner }, 'release.request', {
        owner: lease.owner,
        data: { method, command: 'delete' },
      });
      return step(d, 'not found');
    }
    const g = yield* this.gets(io, key, lease.owner, 'release.request', { method, command: 'gets' });
    if (g.result.status !== 'reply') return step(g.result, '');
    if (g.holder !== lease.owner || g.casId === undefined) return { status: 'failed', msg: g.result.msg, reason: 'not the owner' };
    const c = yield* this.cas(io, key, lease.owner, RELEASE_CAS_TTL_US, g.casId, 'release.request', { method, command: 'cas' });
    if (c.status !== 'reply' || !c.reply.ok) return step(c, 'the item changed since gets');
    const d = yield* io.request(this.node, { op: 'del', key, owner: lease.owner }, 'release.request', {
      owner: lease.owner,
      data: { method, command: 'delete' },
    });
    return step(d, 'not found');
  }

  *get(io: ClientIo, key: string, owner: string, attempt: number): Script<{ result: CallResult<LockReply>; holder: string | null }> {
    const g = yield* this.gets(io, this.keyPrefix + key, owner, 'exists.request', { attempt, command: 'get' });
    return { result: g.result, holder: g.holder };
  }

  *set(io: ClientIo, a: AcquireArgs): Script<AcquireResult> {
    const r = yield* io.request(this.node, { op: 'set', key: this.keyPrefix + a.key, owner: a.owner, ttlUs: a.ttlUs }, 'acquire.request', {
      owner: a.owner,
      ttlUs: a.ttlUs,
      data: { attempt: a.attempt, method: 'set', command: 'set' },
    });
    return acquireResult(r);
  }

  reconfigure(patch: Record<string, unknown>): void {
    if (typeof patch.keyPrefix === 'string') this.keyPrefix = patch.keyPrefix;
  }

  /** putOffExpiration: gets; if absent, add; if ours, cas with the new TTL. */
  private *putOff(io: ClientIo, key: string, owner: string, ttlUs: number, kind: string, attempt: number | undefined): Script<PutOff> {
    const base = attempt === undefined ? {} : { attempt };
    const g = yield* this.gets(io, key, owner, kind, { ...base, command: 'gets' });
    if (g.result.status !== 'reply') return { status: g.result.status, msg: g.result.msg };
    if (g.holder === null) {
      // "Could happen when we ask a putOff after a timeout but in luck nobody stole the lock."
      const r = yield* io.request(this.node, { op: 'acquire', key, owner, ttlUs }, kind, { owner, ttlUs, data: { ...base, command: 'add' } });
      if (r.status !== 'reply') return { status: r.status, msg: r.msg };
      return r.reply.ok ? { status: 'ok', msg: r.msg } : { status: 'conflict', msg: r.msg, holder: null, why: 'someone else added it first' };
    }
    if (g.holder !== owner || g.casId === undefined) return { status: 'conflict', msg: g.result.msg, holder: g.holder, why: `held by ${g.holder}` };
    const c = yield* this.cas(io, key, owner, ttlUs, g.casId, kind, { ...base, command: 'cas' });
    if (c.status !== 'reply') return { status: c.status, msg: c.msg };
    if (c.reply.ok) return { status: 'ok', msg: c.msg };
    return { status: 'conflict', msg: c.msg, holder: c.reply.holder ?? null, why: 'cas failed: the item changed since gets' };
  }

  private *gets(
    io: ClientIo,
    key: string,
    owner: string,
    kind: string,
    data: Record<string, string | number>,
  ): Script<{ result: CallResult<LockReply>; holder: string | null; casId: number | undefined }> {
    const result = yield* io.request(this.node, { op: 'get', key }, kind, { owner, data });
    if (result.status !== 'reply') return { result, holder: null, casId: undefined };
    const reply = result.reply;
    const casId = 'casId' in reply && typeof reply.casId === 'number' ? reply.casId : undefined;
    return { result, holder: reply.holder ?? null, casId };
  }

  private *cas(
    io: ClientIo,
    key: string,
    owner: string,
    ttlUs: number,
    casId: number,
    kind: string,
    data: Record<string, string | number>,
  ): Script<CallResult<LockReply>> {
    const op: CasCommand = { op: 'refresh', key, owner, ttlUs, casId };
    return yield* io.request(this.node, op, kind, { owner, ttlUs, data });
  }
}
