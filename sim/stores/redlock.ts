import { show } from '../errors.js';
import type { RedisSpec, Scenario, StoreSpecBase } from '../scenario/types.js';
import { msToUs, US_PER_MS } from '../time.js';
import type { CallResult } from '../world/endpoint.js';
import type { Script } from '../world/process.js';
import type { World } from '../world/world.js';
import { machineRef } from './checks.js';
import { RedisNode } from './redis.js';
import type {
  AcquireArgs,
  AcquireResult,
  Capabilities,
  ClientIo,
  LeaseRef,
  LockDriver,
  LockOp,
  LockReply,
  StepResult,
  StoreCheck,
  StoreKind,
} from './types.js';

/**
 * Redlock as node-redlock implements the redis.io algorithm. The random value
 * every node stores is an owner token, not a fencing token: it is not ordered.
 * Each node's INCR counter (shown on its grants) counts that node's grants
 * only, so two holders of two different majorities can carry the same number,
 * and a restarted node starts again: nothing is monotonic across the nodes.
 */
export const REDLOCK_CAPABILITIES: Capabilities = {
  scope: 'remote',
  blocking: false,
  expiring: true,
  sharing: false,
  fencingToken: null,
  losesLockWhen: [
    'TTL expires on enough nodes that fewer than a majority hold it',
    "a node's clock jumps forward and expires its copy early",
    'a node restarts without persistence before the longest TTL has passed (no restart delay)',
    'the client pauses past its validity and keeps believing',
  ],
};

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

/** A Redis server in a Redlock deployment: a restart keeps it down for at least the configured restart delay. */
export class RedlockNode extends RedisNode {
  constructor(
    world: World,
    spec: RedisSpec,
    private readonly restartDelayUs: number,
  ) {
    super(world, spec);
  }

  override restart(downUs: number): void {
    super.restart(Math.max(downUs, this.restartDelayUs));
  }
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
  /** By owner: when the lease ends by the client's clock, for node-redlock's "already expired" check before extending. */
  private readonly validUntil = new Map<string, number>();
  private readonly quorum: number;

  constructor(
    private readonly nodes: readonly RedisNode[],
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
      return { status: 'failed', msg: io.world.newMsg(), reason: 'cannot extend an already-expired lock' };
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

const PERSISTENCE = ['none', 'aof-everysec', 'aof-always'];

/** The Redlock store kind: N independent Redis nodes, one lock held by a majority. */
export const REDLOCK: StoreKind = {
  kind: 'redlock',
  title: 'Redlock over N Redis nodes (node-redlock); its random value is no fencing token',
  capabilities: REDLOCK_CAPABILITIES,
  hazardScenario: 'redlock-clock-jump',
  // Three nodes, spread over the scenario's machines from the last one back.
  starter: (machines) => ({
    kind: 'redlock',
    nodes: ['r1', 'r2', 'r3'].map((name, i) => ({ name, machine: machines[(machines.length - 1 - i + 3 * machines.length) % machines.length] ?? 'db' })),
  }),
  faults: ['store-restart'],
  plainGetSet: false,
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['kind', 'nodes'],
    description:
      'Redlock as node-redlock does it: the same SET NX PX on every node in parallel, held when a majority granted it with validity left (TTL − elapsed − drift), retried with jitter; no fencing token.',
    properties: {
      kind: { const: 'redlock' },
      name: { $ref: '#/definitions/name', default: 'redlock', description: 'The name of the group the nodes form; node names come from `nodes`.' },
      nodes: {
        type: 'array',
        minItems: 1,
        maxItems: 99,
        description: 'The independent Redis servers, one per machine as redis.io recommends (five is the usual number).',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'machine'],
          properties: {
            name: { $ref: '#/definitions/name', description: 'The node, as faults and the trace name it.' },
            machine: { $ref: '#/definitions/name', description: 'The machine it runs on (its clock is the one its keys expire by).' },
            persistence: {
              enum: [...PERSISTENCE, null],
              default: null,
              description: "What this node's restart keeps; null: the store's `persistence`.",
            },
          },
        },
      },
      persistence: { enum: PERSISTENCE, default: 'none', description: 'What a restart keeps, for every node that does not say otherwise.' },
      driftFactor: {
        type: 'number',
        minimum: 0,
        maximum: 0.5,
        default: 0.01,
        description: "node-redlock's driftFactor: the client takes TTL × driftFactor + 2 ms off the validity for clock drift.",
      },
      retryCount: { type: 'integer', minimum: 0, maximum: 1000, default: 10, description: 'Further rounds after a failed one, within one acquire or extend.' },
      retryDelayMs: { $ref: '#/definitions/ms', default: 200, description: 'Wait between rounds.' },
      retryJitterMs: { $ref: '#/definitions/ms', default: 100, description: 'The wait varies by up to this much either way (seeded).' },
      restartDelayMs: {
        $ref: '#/definitions/ms',
        default: 0,
        description: 'A crashed node stays down at least this long; redis.io recommends more than the longest TTL when persistence is not "aof-always".',
      },
    },
  },
  normalize(input: Record<string, unknown>, check: StoreCheck): RedlockSpec {
    const nodes = (input.nodes as Array<Partial<RedlockNodeSpec> & { name: string; machine: string }>).map((n) => ({
      name: n.name,
      machine: n.machine,
      persistence: n.persistence ?? null,
    }));
    const spec: RedlockSpec = {
      kind: 'redlock',
      name: (input.name as string | undefined) ?? 'redlock',
      nodes,
      persistence: (input.persistence as Persistence | undefined) ?? 'none',
      driftFactor: (input.driftFactor as number | undefined) ?? 0.01,
      retryCount: (input.retryCount as number | undefined) ?? 10,
      retryDelayMs: (input.retryDelayMs as number | undefined) ?? 200,
      retryJitterMs: (input.retryJitterMs as number | undefined) ?? 100,
      restartDelayMs: (input.restartDelayMs as number | undefined) ?? 0,
    };
    const seen = new Set<string>();
    nodes.forEach((n, i) => {
      machineRef(check, n.machine, `nodes[${i}].machine`);
      if (seen.has(n.name)) check.issues.push({ path: `${check.path}.nodes[${i}].name`, message: `the redlock store has two nodes named ${show(n.name)}` });
      seen.add(n.name);
    });
    if (seen.has(spec.name)) {
      check.issues.push({ path: `${check.path}.name`, message: `the redlock store's group name ${show(spec.name)} is also one of its nodes' names` });
    }
    // A TTL the drift allowance swallows can never be acquired: every round would fail for want of validity.
    check.scenario.clients.forEach((c, i) => {
      const ttlUs = msToUs(c.ttlMs);
      const drift = driftUs(ttlUs, spec.driftFactor);
      if (ttlUs <= drift) {
        check.issues.push({
          path: `clients[${i}].ttlMs`,
          message: `the redlock store takes ${drift / US_PER_MS} ms off every lease for clock drift (ttl × driftFactor + 2 ms), which leaves no validity for a ${c.ttlMs} ms TTL`,
        });
      }
    });
    return spec;
  },
  nodeNames: (spec: StoreSpecBase) => (spec as RedlockSpec).nodes.map((n) => n.name),
  create(world: World, spec: StoreSpecBase, _scenario: Scenario) {
    const r = spec as RedlockSpec;
    const quorum = majority(r.nodes.length);
    const delayUs = msToUs(r.restartDelayMs);
    const nodes = r.nodes.map((n) => {
      const redis: RedisSpec = {
        kind: 'redis',
        name: n.name,
        machine: n.machine,
        persistence: n.persistence ?? r.persistence,
        fencingTokenStart: 1,
        keyPrefix: '',
      };
      world.setNodeGroup(n.name, r.name, quorum);
      return new RedlockNode(world, redis, delayUs);
    });
    return {
      nodes: new Map(nodes.map((n) => [n.name, n])),
      driver: () => new RedlockDriver(nodes, r),
    };
  },
};
