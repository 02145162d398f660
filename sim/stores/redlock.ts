import { LIMITS } from '../scenario/limits.js';
import { show } from '../errors.js';
import type { RedisSpec, Scenario, StoreSpecBase } from '../scenario/types.js';
import { msToUs, US_PER_MS } from '../time.js';

import type { World } from '../world/world.js';
import { machineRef } from './checks.js';
import { RedisNode } from './redis.js';
import { driftUs, majority, RedlockDriver, type Persistence, type RedlockNodeSpec, type RedlockSpec } from './redlock-driver.js';

export { driftUs, majority, missedData, type Persistence, type RedlockNodeSpec, type RedlockSpec } from './redlock-driver.js';
import type { Capabilities, StoreCheck, StoreKind } from './types.js';

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
        maxItems: LIMITS.maxStoreNodes,
        'x-limit': 'maxStoreNodes',
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
    return { nodes: new Map(nodes.map((n) => [n.name, n])) };
  },
  driver(spec: StoreSpecBase) {
    const r = spec as RedlockSpec;
    return new RedlockDriver(
      r.nodes.map((n) => ({ name: n.name })),
      r,
    );
  },
};
