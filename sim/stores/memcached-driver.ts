import type { CallResult, Effect, NodeRef, Script } from '../runtime/types.js';
import { US_PER_S } from '../time.js';
import { acquireResult } from './single-node-driver.js';
import type { AcquireArgs, AcquireResult, ClientIo, ExistsResult, LeaseRef, LockDriver, LockOp, LockReply, StepResult } from './protocol.js';

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

/** MemcachedStore refuses TTLs under a second (InvalidTtlException), and saves with its initial TTL first: 300 s by default. */
export const MEMCACHED_MIN_TTL_US = US_PER_S;
export const DEFAULT_INITIAL_TTL_US = 300 * US_PER_S;

/**
 * php-memcached answers a failed command with false, as it answers a key
 * that is taken: MemcachedStore cannot tell them apart, so every failure is
 * a conflict (acquire returns false, refresh throws LockConflictedException)
 * or, for a release, nothing to delete.
 */
function step(r: CallResult<LockReply>, failure: string): StepResult {
  if (r.status !== 'reply') return { status: 'failed', msg: r.msg, reason: `${r.status}: memcached answered false` };
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
  readonly library = { store: 'MemcachedStore', exception: 'MemcachedException' };

  constructor(
    private node: NodeRef,
    private keyPrefix: string,
    private readonly initialTtlUs = DEFAULT_INITIAL_TTL_US,
    private readonly nodeFor?: (patch: Record<string, unknown>) => NodeRef | undefined,
  ) {}

  *acquire(io: ClientIo, a: AcquireArgs): Script<AcquireResult> {
    const key = this.keyPrefix + a.key;
    // Lock::acquire() is save() with the initial TTL, then refresh($ttl); the model sends the TTL in the save,
    // except when refresh would refuse it: then the key is saved for the initial TTL and the refusal follows.
    const invalid = a.ttlUs < MEMCACHED_MIN_TTL_US;
    const ttlUs = invalid ? this.initialTtlUs : a.ttlUs;
    const r = (yield io.send(this.node, { op: 'acquire', key, owner: a.owner, ttlUs }, 'acquire.request', {
      owner: a.owner,
      ttlUs,
      data: { attempt: a.attempt, command: 'add' },
    })) as CallResult<LockReply>;
    let result: AcquireResult;
    // add() said false — the key is taken, or the command failed — so "it could be us: let's try to put off".
    if (r.status === 'reply' && r.reply.ok) result = acquireResult(r);
    else {
      const p = yield* this.putOff(io, key, a.owner, ttlUs, 'acquire.request', a.attempt);
      if (p.status === 'ok') result = { status: 'ok', msg: p.msg };
      else if (p.status === 'conflict') result = { status: 'denied', msg: p.msg, holder: p.holder, reason: p.holder === null ? p.why : undefined };
      else result = { status: 'denied', msg: p.msg, reason: `${p.status}: memcached answered false, as for a taken key` };
    }
    if (invalid && result.status === 'ok') return { status: 'invalid-ttl', msg: result.msg, reason: invalidTtl(a.ttlUs) };
    return result;
  }

  *refresh(io: ClientIo, lease: LeaseRef, ttlUs: number): Script<StepResult> {
    if (ttlUs < MEMCACHED_MIN_TTL_US) return { status: 'invalid-ttl', msg: io.newMsg(), reason: invalidTtl(ttlUs) };
    const p = yield* this.putOff(io, this.keyPrefix + lease.key, lease.owner, ttlUs, 'refresh.request', undefined);
    if (p.status === 'ok') return { status: 'ok', msg: p.msg };
    if (p.status === 'conflict') return { status: 'failed', msg: p.msg, reason: p.why };
    return { status: 'failed', msg: p.msg, reason: `${p.status}: memcached answered false` };
  }

  /** exists(): `get` returns our token, or not (a failed `get` returns false, which is not our token). */
  *exists(io: ClientIo, lease: LeaseRef): Script<ExistsResult> {
    const g = gotten((yield this.gets(io, this.keyPrefix + lease.key, lease.owner, 'isAcquired.request', { command: 'get' })) as CallResult<LockReply>);
    return { status: g.result.status === 'reply' && g.holder === lease.owner ? 'yes' : 'no', msg: g.result.msg };
  }

  *release(io: ClientIo, lease: LeaseRef, method: 'token-checked' | 'plain-del'): Script<StepResult> {
    const key = this.keyPrefix + lease.key;
    if (method === 'plain-del') {
      const d = (yield io.send(this.node, { op: 'del', key, owner: lease.owner }, 'release.request', {
        owner: lease.owner,
        data: { method, command: 'delete' },
      })) as CallResult<LockReply>;
      return step(d, 'not found');
    }
    const g = gotten((yield this.gets(io, key, lease.owner, 'release.request', { method, command: 'gets' })) as CallResult<LockReply>);
    if (g.result.status !== 'reply') return step(g.result, '');
    if (g.holder !== lease.owner || g.casId === undefined) return { status: 'failed', msg: g.result.msg, reason: 'not the owner' };
    const c = (yield this.cas(io, key, lease.owner, RELEASE_CAS_TTL_US, g.casId, 'release.request', { method, command: 'cas' })) as CallResult<LockReply>;
    if (c.status === 'reply' && !c.reply.ok && c.reply.error !== undefined) {
      // The server refused to store (memcached -M with memory full): delete() returns quietly, and Lock::release()
      // then asks exists(), whose `get` still finds our token.
      const e = gotten((yield this.gets(io, key, lease.owner, 'release.request', { method, command: 'get' })) as CallResult<LockReply>);
      const kept = e.result.status === 'reply' && e.holder === lease.owner;
      return { status: 'failed', msg: e.result.msg, reason: c.reply.error, ...(kept ? { stillLocked: true as const } : {}) };
    }
    if (c.status !== 'reply' || !c.reply.ok) return step(c, 'the item changed since gets');
    const d = (yield io.send(this.node, { op: 'del', key, owner: lease.owner }, 'release.request', {
      owner: lease.owner,
      data: { method, command: 'delete' },
    })) as CallResult<LockReply>;
    return step(d, 'not found');
  }

  *get(io: ClientIo, key: string, owner: string, attempt: number): Script<{ result: CallResult<LockReply>; holder: string | null }> {
    const g = gotten((yield this.gets(io, this.keyPrefix + key, owner, 'exists.request', { attempt, command: 'get' })) as CallResult<LockReply>);
    return { result: g.result, holder: g.holder };
  }

  *set(io: ClientIo, a: AcquireArgs): Script<AcquireResult> {
    const r = (yield io.send(this.node, { op: 'set', key: this.keyPrefix + a.key, owner: a.owner, ttlUs: a.ttlUs }, 'acquire.request', {
      owner: a.owner,
      ttlUs: a.ttlUs,
      data: { attempt: a.attempt, method: 'set', command: 'set' },
    })) as CallResult<LockReply>;
    return acquireResult(r);
  }

  reconfigure(patch: Record<string, unknown>): void {
    if (typeof patch.keyPrefix === 'string') this.keyPrefix = patch.keyPrefix;
    this.node = this.nodeFor?.(patch) ?? this.node;
  }

  /** putOffExpiration: gets; if absent, add; if ours, cas with the new TTL. */
  private *putOff(io: ClientIo, key: string, owner: string, ttlUs: number, kind: string, attempt: number | undefined): Script<PutOff> {
    const g = gotten((yield this.gets(io, key, owner, kind, commandData(attempt, 'gets'))) as CallResult<LockReply>);
    if (g.result.status !== 'reply') return { status: g.result.status, msg: g.result.msg };
    if (g.holder === null) {
      // "Could happen when we ask a putOff after a timeout but in luck nobody stole the lock."
      const r = (yield io.send(this.node, { op: 'acquire', key, owner, ttlUs }, kind, {
        owner,
        ttlUs,
        data: commandData(attempt, 'add'),
      })) as CallResult<LockReply>;
      if (r.status !== 'reply') return { status: r.status, msg: r.msg };
      if (r.reply.ok) return { status: 'ok', msg: r.msg };
      // add() said false again: taken in between — or, to MemcachedStore indistinguishably, a server error.
      return { status: 'conflict', msg: r.msg, holder: null, why: r.reply.error ?? 'someone else added it first' };
    }
    if (g.holder !== owner || g.casId === undefined) return { status: 'conflict', msg: g.result.msg, holder: g.holder, why: `held by ${g.holder}` };
    const c = (yield this.cas(io, key, owner, ttlUs, g.casId, kind, commandData(attempt, 'cas'))) as CallResult<LockReply>;
    if (c.status !== 'reply') return { status: c.status, msg: c.msg };
    if (c.reply.ok) return { status: 'ok', msg: c.msg };
    return { status: 'conflict', msg: c.msg, holder: c.reply.holder ?? null, why: c.reply.error ?? 'cas failed: the item changed since gets' };
  }

  /**
   * `gets` (or `get`) as an effect to yield, its result read by `gotten`.
   * This driver's commands are yielded straight to the runtime, not through
   * a generator each: a refused poll makes two of them (add, then gets), and
   * every generator between a command and the runtime is resumed on its way
   * out and on its way back.
   */
  private gets(io: ClientIo, key: string, owner: string, kind: string, data: Record<string, string | number>): Effect {
    return io.send(this.node, { op: 'get', key }, kind, { owner, data });
  }

  private cas(io: ClientIo, key: string, owner: string, ttlUs: number, casId: number, kind: string, data: Record<string, string | number>): Effect {
    const op: CasCommand = { op: 'refresh', key, owner, ttlUs, casId };
    return io.send(this.node, op, kind, { owner, ttlUs, data });
  }
}

/** What a `gets` found: the result, the holder's token if any, and the item's CAS id. */
function gotten(result: CallResult<LockReply>): { result: CallResult<LockReply>; holder: string | null; casId: number | undefined } {
  if (result.status !== 'reply') return { result, holder: null, casId: undefined };
  const reply = result.reply;
  const casId = 'casId' in reply && typeof reply.casId === 'number' ? reply.casId : undefined;
  return { result, holder: reply.holder ?? null, casId };
}

/** A putOffExpiration command's data: the attempt, when acquiring, then the command (written out, not spread: in this order, every poll). */
function commandData(attempt: number | undefined, command: string): Record<string, string | number> {
  return attempt === undefined ? { command } : { attempt, command };
}

/** InvalidTtlException's message, as MemcachedStore and PdoStore word it. */
export function invalidTtl(ttlUs: number, store = 'MemcachedStore'): string {
  return `"${store}::putOffExpiration()" expects a TTL greater or equals to 1 second. Got ${ttlUs / US_PER_S}.`;
}
