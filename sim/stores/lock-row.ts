import type { Scenario, StoreSpecBase } from '../scenario/types.js';
import type { Caller } from '../world/endpoint.js';
import type { Machine } from '../world/machine.js';
import type { World } from '../world/world.js';
import { machineRef } from './checks.js';
import { deployNodes, deployedNodeFor } from './deploy.js';
import { TableDriver } from './table-driver.js';
import type { Capabilities, LockOp, LockReply, StoreCheck, StoreInstance, StoreKind, StoreNode } from './types.js';
import { storeSchema } from './schema-of.js';

export interface LockRowSpec extends StoreSpecBase {
  kind: 'lock-row';
  name: string;
  machine: string;
  keyPrefix: string;
}

export const LOCK_ROW_CAPABILITIES: Capabilities = {
  scope: 'remote',
  blocking: false,
  expiring: false,
  sharing: false,
  fencingToken: null,
  losesLockWhen: ['never: nothing ends the row but its owner’s DELETE, so a holder that dies without one blocks everyone until a human deletes it'],
};

/**
 * The lock before leases: a hand-written table where INSERT takes the lock
 * (the primary key refuses a second row), DELETE ... WHERE token = mine
 * releases it, and nothing else ever does — no expiry, no session. A holder
 * that crashes leaves its row, and everyone waits for a person to delete
 * it: the picture leases were invented to fix.
 */
export class LockRowNode implements StoreNode {
  readonly machine: Machine;
  private readonly rows = new Map<string, { owner: string; client: string }>();
  private up = true;

  constructor(
    private readonly world: World,
    readonly name: string,
    machine: string,
  ) {
    this.machine = world.machine(machine);
  }

  isUp(): boolean {
    return this.up;
  }

  handle(req: LockOp, caller: Caller): LockReply {
    const row = this.rows.get(req.key);
    switch (req.op) {
      case 'acquire': {
        if (row !== undefined) return row.owner === req.owner ? { ok: true } : { ok: false, holder: row.owner };
        this.rows.set(req.key, { owner: req.owner, client: caller.process });
        this.world.record('lock.granted', this.name, this.machine, {
          key: req.key,
          owner: req.owner,
          peer: caller.process,
          msg: caller.msg,
          data: { how: 'INSERT' },
        });
        return { ok: true };
      }
      case 'refresh':
      case 'exists':
        return { ok: row !== undefined && row.owner === req.owner };
      case 'release':
        if (row === undefined || row.owner !== req.owner) return { ok: false, holder: row?.owner ?? null };
        this.rows.delete(req.key);
        this.world.record('lock.released', this.name, this.machine, {
          key: req.key,
          owner: row.owner,
          peer: caller.process,
          msg: caller.msg,
          reason: 'released',
        });
        return { ok: true };
      case 'get':
      case 'set':
      case 'del':
        return { ok: false, error: 'the lock table only takes token-checked statements' };
    }
  }

  restart(downUs: number): void {
    if (!this.up) return;
    this.up = false;
    this.world.record('store.down', this.name, this.machine, { reason: 'restart', data: { persistence: 'durable', keysLost: 0 } });
    this.world.kernel.after(downUs, () => {
      this.up = true;
      this.world.record('store.up', this.name, this.machine, { data: { keysKept: this.rows.size } });
    });
  }
}

const COMMANDS = { acquire: 'INSERT', refresh: 'SELECT', release: 'DELETE', exists: 'SELECT' };

/** The lock-row store kind: a hand-written lock table without expiry. */
export const LOCK_ROW: StoreKind = {
  kind: 'lock-row',
  title: 'Hand-written lock row (INSERT to lock, DELETE to unlock, no expiry)',
  capabilities: LOCK_ROW_CAPABILITIES,
  hazardScenario: 'never-expiring-lock',
  faults: ['store-restart', 'deploy'],
  deployable: ['keyPrefix', 'machine'],
  plainGetSet: false,
  schema: storeSchema({
    kind: 'lock-row',
    description:
      'A hand-written lock table with no expiry: INSERT takes the lock, DELETE ... WHERE token = mine releases it, and nothing else ever frees it (the picture before leases).',
    name: { default: 'locks', description: "The database's node name in the trace and in faults." },
    machine: { description: 'The database server’s machine.' },
    properties: {
      keyPrefix: { type: 'string', maxLength: 200, default: '', description: 'Prepended to every key; a deploy may change it.' },
    },
  }),
  normalize(input: Record<string, unknown>, check: StoreCheck): LockRowSpec {
    const spec: LockRowSpec = {
      kind: 'lock-row',
      name: (input.name as string | undefined) ?? 'locks',
      machine: input.machine as string,
      keyPrefix: (input.keyPrefix as string | undefined) ?? '',
    };
    machineRef(check, spec.machine, 'machine');
    return spec;
  },
  nodeNames: (spec: StoreSpecBase, scenario?: Omit<Scenario, 'store'>) => deployNodes(spec, scenario).map((n) => n.name),
  create(world: World, spec: StoreSpecBase, scenario: Scenario): StoreInstance {
    const nodes = deployNodes(spec, scenario).map((n) => new LockRowNode(world, n.name, n.machine));
    return { nodes: new Map(nodes.map((n) => [n.name, n])) };
  },
  driver(spec: StoreSpecBase) {
    const row = spec as LockRowSpec;
    return new TableDriver(
      { name: row.name },
      row.keyPrefix,
      false,
      COMMANDS,
      { store: 'hand-written lock table', exception: 'PDOException', expires: false },
      deployedNodeFor(row),
    );
  },
};
