import type { Timer } from '../kernel/kernel.js';
import type { Scenario, StoreSpecBase } from '../scenario/types.js';
import { US_PER_MS, US_PER_S } from '../time.js';
import type { World } from '../world/world.js';
import { machineRef } from './checks.js';
import { deployedNodeFor, deployNodes, nodeSpec } from './deploy.js';
import { ExpiringTableNode } from './sql.js';
import { TableDriver } from './table-driver.js';
import type { Capabilities, StoreCheck, StoreInstance, StoreKind } from './types.js';
import { storeSchema } from './schema-of.js';

export interface MongoDbSpec extends StoreSpecBase {
  kind: 'mongodb';
  name: string;
  machine: string;
  /** How often the TTL monitor deletes expired documents (mongod's ttlMonitorSleepSecs). */
  ttlMonitorSec: number;
  /**
   * The TTL index's expireAfterSeconds (createTtlIndex()): the monitor
   * deletes a document this long after its expires_at, by the server's
   * clock; the docs advise a margin for clock drift. null: no TTL index, so
   * expired documents stay until someone takes them over.
   */
  expireAfterSeconds: number | null;
  keyPrefix: string;
}

export const MONGODB_CAPABILITIES: Capabilities = {
  scope: 'remote',
  blocking: false,
  expiring: true,
  sharing: false,
  fencingToken: null,
  losesLockWhen: [
    "expires_at (computed on the writing client's clock) passes by that clock",
    'another client whose clock runs ahead takes over early',
    "the TTL monitor deletes the document early when the server's clock runs ahead of the writer's",
  ],
};

export const MONGO_COMMANDS = { acquire: 'updateOne upsert', refresh: 'updateOne upsert', release: 'deleteOne', exists: 'findOne' };

/**
 * One MongoDB server holding Symfony's lock collection: `_id` is the key,
 * `token` the owner, `expires_at` a date computed by the client as its own
 * now + TTL (milliseconds). Acquire and refresh are one upsert whose filter
 * matches the key with our token or with `expires_at <= now` — now by the
 * acquiring client's clock — and a duplicate-key error means someone else
 * holds it. A TTL index lets the server's TTL monitor delete expired
 * documents, but only on its passes, about every 60 s, and by the server's
 * clock; takeover never waits for it.
 */
export class MongoDbNode extends ExpiringTableNode {
  private monitor: Timer | undefined;
  private readonly everyUs: number;
  private readonly afterMs: number | null;

  constructor(world: World, spec: MongoDbSpec) {
    super(world, spec.name, spec.machine, { unitUs: US_PER_MS, clock: 'client', refreshInserts: true, noun: 'document' });
    this.everyUs = spec.ttlMonitorSec * US_PER_S;
    this.afterMs = spec.expireAfterSeconds === null ? null : spec.expireAfterSeconds * 1000;
  }

  /** The monitor runs only while there are documents (and a TTL index), so a finished run is not kept alive by it. */
  protected override changed(): void {
    if (this.rows.size === 0 || this.afterMs === null) {
      this.world.kernel.cancel(this.monitor);
      this.monitor = undefined;
      return;
    }
    if (this.monitor !== undefined) return;
    // Passes fall on whole multiples of the interval since the server started.
    const next = (Math.floor(this.world.nowUs / this.everyUs) + 1) * this.everyUs;
    this.monitor = this.world.kernel.at(next, () => this.pass());
  }

  private pass(): void {
    this.monitor = undefined;
    const serverMs = Math.floor(this.machine.clock.read(this.world.nowUs) / US_PER_MS);
    let deleted = 0;
    for (const [key, row] of [...this.rows]) {
      if (row.expires + (this.afterMs ?? 0) > serverMs) continue;
      deleted++;
      const margin = this.afterMs === 0 ? '' : ` (+ expireAfterSeconds ${(this.afterMs ?? 0) / 1000} s)`;
      this.remove(key, row, `the TTL monitor deleted the document: expires_at ${this.show(row.expires)}${margin} passed by the server clock`);
    }
    if (deleted > 0) this.world.record('ttl.monitor', this.name, this.machine, { data: { deleted, left: this.rows.size } });
    this.changed();
  }
}

/** The MongoDB store kind: Symfony's MongoDbStore over one server. */
export const MONGODB: StoreKind = {
  kind: 'mongodb',
  title: 'MongoDB (MongoDbStore)',
  capabilities: MONGODB_CAPABILITIES,
  hazardScenario: 'mongodb-client-clock-skew',
  faults: ['store-restart', 'deploy'],
  deployable: ['keyPrefix', 'machine'],
  plainGetSet: false,
  schema: storeSchema({
    kind: 'mongodb',
    description:
      "One MongoDB server with Symfony's MongoDbStore: expires_at is computed from the client's clock, a client takes over a document once expires_at <= now by its own clock, and the TTL monitor deletes expired documents only on its passes (about every 60 s).",
    name: { default: 'mongodb', description: "The server's node name in the trace and in faults." },
    machine: { description: 'The machine the server runs on.' },
    properties: {
      ttlMonitorSec: {
        type: 'integer',
        minimum: 1,
        maximum: 86400,
        default: 60,
        description: "Seconds between the TTL monitor's passes (mongod's ttlMonitorSleepSecs, 60 by default).",
      },
      expireAfterSeconds: {
        type: ['integer', 'null'],
        minimum: 0,
        maximum: 31536000,
        default: 0,
        description:
          "The TTL index's expireAfterSeconds (MongoDbStore::createTtlIndex(), 0 by default): the monitor deletes a document this long after its expires_at, by the server's clock; the Symfony docs advise a margin for clock drift. null: no TTL index.",
      },
      keyPrefix: { type: 'string', maxLength: 200, default: '', description: 'Prepended to every key; a deploy may change it.' },
    },
  }),
  normalize(input: Record<string, unknown>, check: StoreCheck): MongoDbSpec {
    const spec: MongoDbSpec = {
      kind: 'mongodb',
      name: (input.name as string | undefined) ?? 'mongodb',
      machine: input.machine as string,
      ttlMonitorSec: (input.ttlMonitorSec as number | undefined) ?? 60,
      expireAfterSeconds: input.expireAfterSeconds === undefined ? 0 : (input.expireAfterSeconds as number | null),
      keyPrefix: (input.keyPrefix as string | undefined) ?? '',
    };
    machineRef(check, spec.machine, 'machine');
    return spec;
  },
  nodeNames: (spec: StoreSpecBase, scenario?: Omit<Scenario, 'store'>) => deployNodes(spec, scenario).map((n) => n.name),
  create(world: World, spec: StoreSpecBase, scenario: Scenario): StoreInstance {
    const mongo = spec as MongoDbSpec;
    const nodes = deployNodes(spec, scenario).map((n) => new MongoDbNode(world, nodeSpec(mongo, n)));
    return { nodes: new Map(nodes.map((n) => [n.name, n])) };
  },
  driver(spec: StoreSpecBase) {
    return new TableDriver(
      { name: spec.name },
      (spec as MongoDbSpec).keyPrefix,
      true,
      MONGO_COMMANDS,
      {
        store: 'MongoDbStore',
        exception: 'MongoDB\\Driver\\Exception\\ConnectionTimeoutException',
      },
      deployedNodeFor(spec),
    );
  },
};
