import type { RedisSpec, StoreSpecBase } from '../scenario/types.js';
import type { CallResult, NodeRef, Script } from '../runtime/types.js';
import { msToUs, US_PER_MS } from '../time.js';
import type { AcquireArgs, AcquireResult, ClientIo, ExistsResult, LeaseRef, LockDriver, LockOp, LockReply, StepResult } from './protocol.js';

export type Persistence = RedisSpec['persistence'];

export interface RedlockNodeSpec {
  name: string;
  machine: string;
  /** null: the store's `persistence`. Kept null after normalizing, so `--set store.persistence=…` still reaches every node. */
  persistence: Persistence | null;
}

export interface RedlockSpec extends StoreSpecBase {
  kind: 'redlock';
  /** The name of the group the nodes form (the checker's unit of truth). */
  name: string;
  nodes: RedlockNodeSpec[];
  persistence: Persistence;
  /** node-redlock `driftFactor`: the drift allowance is TTL × driftFactor + 2 ms. */
  driftFactor: number;
  /** node-redlock `retryCount`: rounds after the first within one acquire (or extend). */
  retryCount: number;
  retryDelayMs: number;
  retryJitterMs: number;
  /**
   * The redis.io recommendation for nodes without full persistence: a crashed
   * node stays unavailable at least this long (longer than the longest TTL),
   * so that every lock it knew of has expired before it takes requests again.
   */
  restartDelayMs: number;
}

/** node-redlock's quorum: `Math.floor(n / 2) + 1`. */
export function majority(n: number): number {
  return Math.floor(n / 2) + 1;
}

/** node-redlock: `Math.round(driftFactor × duration) + 2` ms, the 2 ms for Redis's 1 ms expiry precision. */
export function driftUs(ttlUs: number, driftFactor: number): number {
  return Math.round(driftFactor * ttlUs) + 2 * US_PER_MS;
}

/** One round of a script on every node at once, counted. */
interface Vote {
  readonly granted: number;
  readonly results: Array<CallResult<LockReply>>;
  /** The first holder a node named in a refusal, if any. */
  readonly holder: string | undefined;
  /** By the client's clock: when the round began, and how long it took. */
  readonly startLocalUs: number;
  readonly elapsedUs: number;
}

/** The message of the first reply that agreed (or, failing that, of the first request), for the lifecycle's event. */
function firstMsg(results: ReadonlyArray<CallResult<LockReply>>, ok: boolean): number {
  const hit = ok ? results.find((r) => r.status === 'reply' && r.reply.ok) : undefined;
  return (hit ?? results[0])?.msg ?? 0;
}

/** The data of a `quorum.missed` event; undefined parts are left out, so the trace stays byte-stable. */
export function missedData(
  granted: number,
  of: number,
  needed: number,
  unit: 'nodes' | 'stores',
  extra: Record<string, number | string | undefined>,
): Record<string, number | string> {
  const data: Record<string, number | string> = { granted, of, needed, unit };
  for (const k in extra) {
    const v = extra[k];
    if (v !== undefined) data[k] = v;
  }
  return data;
}

/**
 * node-redlock's client: the same SET NX PX with the same random value on
 * every node in parallel; success on a majority with positive validity
 * (TTL − elapsed − drift); otherwise a token-checked DEL on every node and,
 * after retryDelay ± retryJitter, another round, up to retryCount more. The
 * retries happen inside the one acquire the lifecycle asks for, as they do
 * inside node-redlock's `acquire()`; the lifecycle's own retries come on top.
 *
 * Where it differs from node-redlock v5, and why:
 * - A round waits for every node's reply or timeout (the world's `callAll`
 *   has no "resume at quorum"), where node-redlock resolves at the quorum-th
 *   vote; with a small per-node timeout, as redis.io recommends, it matters little.
 * - Validity is measured from the start of the successful round (redis.io's
 *   step 1) and a round whose validity is gone counts as failed, as in
 *   node-redlock v4 and redis.io; v5 measures from before the first round.
 * - A failed round cleans up at once (redis.io, v4); v5 cleans up only after
 *   the last round.
 * - Release is one round (v5 would retry a release that no majority confirms).
 */
export class RedlockDriver implements LockDriver {
  readonly library = { store: 'node-redlock', exception: 'ExecutionError' };
  /** By owner: when the lease ends by the client's clock, for node-redlock's "already expired" check before extending. */
  private readonly validUntil = new Map<string, number>();
  private readonly quorum: number;

  constructor(
    private readonly nodes: readonly NodeRef[],
    private readonly spec: RedlockSpec,
  ) {
    this.quorum = majority(nodes.length);
  }

  private *round(io: ClientIo, op: LockOp, kind: string, fields: { owner: string; ttlUs?: number; data: Record<string, number | string> }): Script<Vote> {
    const startLocalUs = io.localNow();
    const results = yield* io.requestAll(
      this.nodes.map((node) => ({ node, op })),
      kind,
      { owner: fields.owner, ttlUs: fields.ttlUs, data: fields.data },
    );
    let granted = 0;
    let holder: string | undefined;
    for (const r of results) {
      if (r.status !== 'reply') continue;
      if (r.reply.ok) granted++;
      else if (holder === undefined && typeof r.reply.holder === 'string') holder = r.reply.holder;
    }
    return { granted, results, holder, startLocalUs, elapsedUs: io.localNow() - startLocalUs };
  }

  private retryDelayUs(io: ClientIo): number {
    const jitterUs = msToUs(this.spec.retryJitterMs);
    return Math.max(0, msToUs(this.spec.retryDelayMs) + (jitterUs > 0 ? io.rng().int(-jitterUs, jitterUs) : 0));
  }

  *acquire(io: ClientIo, a: AcquireArgs): Script<AcquireResult> {
    const rounds = this.spec.retryCount + 1;
    const drift = driftUs(a.ttlUs, this.spec.driftFactor);
    const op: LockOp = { op: 'acquire', key: a.key, owner: a.owner, ttlUs: a.ttlUs };
    for (let round = 1; ; round++) {
      const vote = yield* this.round(io, op, 'acquire.request', { owner: a.owner, ttlUs: a.ttlUs, data: { attempt: a.attempt, round } });
      const validityUs = a.ttlUs - vote.elapsedUs - drift;
      if (vote.granted >= this.quorum && validityUs > 0) {
        const expiresLocalUs = vote.startLocalUs + a.ttlUs - drift;
        this.validUntil.set(a.owner, expiresLocalUs);
        return { status: 'ok', msg: firstMsg(vote.results, true), expiresLocalUs };
      }
      const retry = round < rounds;
      const delayUs = retry ? this.retryDelayUs(io) : undefined;
      const reason =
        vote.granted >= this.quorum
          ? `validity ran out: ${vote.elapsedUs} µs elapsed + ${drift} µs drift ≥ TTL`
          : `quorum not reached: ${vote.granted} of ${this.nodes.length} nodes (${this.quorum} needed)`;
      io.emit('quorum.missed', {
        owner: a.owner,
        reason,
        data: missedData(vote.granted, this.nodes.length, this.quorum, 'nodes', { round, rounds, validityUs, retryInUs: delayUs }),
      });
      // redis.io: "try to unlock all the instances (even the instances it believed it was not able to lock)".
      yield* this.round(io, { op: 'release', key: a.key, owner: a.owner }, 'release.request', {
        owner: a.owner,
        data: { method: 'token-checked', cleanup: 'failed acquire' },
      });
      if (delayUs === undefined) {
        return {
          status: 'denied',
          msg: firstMsg(vote.results, false),
          holder: vote.holder,
          reason: `${reason}, after ${rounds} round${rounds === 1 ? '' : 's'}`,
        };
      }
      yield { k: 'sleep', localUs: delayUs };
    }
  }

  /** node-redlock `extend`: refuses an already-expired lock, then the extend script on every node, by the same quorum rule and retries. */
  *refresh(io: ClientIo, lease: LeaseRef, ttlUs: number): Script<StepResult> {
    const until = this.validUntil.get(lease.owner);
    if (until !== undefined && io.localNow() >= until) {
      // No request goes out: node-redlock checks its own clock first. The message id ties nothing; StepResult needs one.
      return { status: 'failed', msg: io.newMsg(), reason: 'cannot extend an already-expired lock' };
    }
    const rounds = this.spec.retryCount + 1;
    const drift = driftUs(ttlUs, this.spec.driftFactor);
    const op: LockOp = { op: 'refresh', key: lease.key, owner: lease.owner, ttlUs };
    for (let round = 1; ; round++) {
      const vote = yield* this.round(io, op, 'refresh.request', { owner: lease.owner, ttlUs, data: { round } });
      const validityUs = ttlUs - vote.elapsedUs - drift;
      if (vote.granted >= this.quorum && validityUs > 0) {
        const expiresLocalUs = vote.startLocalUs + ttlUs - drift;
        this.validUntil.set(lease.owner, expiresLocalUs);
        // The client's lease ends by its validity, as at acquire, not at request time + TTL.
        return { status: 'ok', msg: firstMsg(vote.results, true), expiresLocalUs };
      }
      const retry = round < rounds;
      const delayUs = retry ? this.retryDelayUs(io) : undefined;
      io.emit('quorum.missed', {
        owner: lease.owner,
        reason: 'extend',
        data: missedData(vote.granted, this.nodes.length, this.quorum, 'nodes', { round, rounds, validityUs, retryInUs: delayUs }),
      });
      if (delayUs === undefined) {
        this.validUntil.delete(lease.owner);
        return {
          status: 'failed',
          msg: firstMsg(vote.results, false),
          reason: `extended on ${vote.granted} of ${this.nodes.length} nodes (${this.quorum} needed)`,
        };
      }
      yield { k: 'sleep', localUs: delayUs };
    }
  }

  /** Whether a majority of the nodes still hold our value (node-redlock keeps no such check; this asks each node, as Symfony's exists() would). */
  *exists(io: ClientIo, lease: LeaseRef): Script<ExistsResult> {
    const vote = yield* this.round(io, { op: 'exists', key: lease.key, owner: lease.owner }, 'isAcquired.request', { owner: lease.owner, data: {} });
    return { status: vote.granted >= this.quorum ? 'yes' : 'no', msg: firstMsg(vote.results, vote.granted >= this.quorum) };
  }

  /** The token-checked DEL on every node at once; it counts as done when a majority deleted its copy. */
  *release(io: ClientIo, lease: LeaseRef): Script<StepResult> {
    this.validUntil.delete(lease.owner);
    const vote = yield* this.round(io, { op: 'release', key: lease.key, owner: lease.owner }, 'release.request', {
      owner: lease.owner,
      data: { method: 'token-checked' },
    });
    if (vote.granted >= this.quorum) return { status: 'ok', msg: firstMsg(vote.results, true) };
    return { status: 'failed', msg: firstMsg(vote.results, false), reason: `deleted on ${vote.granted} of ${this.nodes.length} nodes (${this.quorum} needed)` };
  }
}
