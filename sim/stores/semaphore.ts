import type { ClientSpec, FaultSpec, Scenario, StoreSpecBase } from '../scenario/types.js';
import type { World } from '../world/world.js';
import { LocalDriver } from './local-driver.js';
import { localNodeName, localNodes } from './local-table.js';
import type { Capabilities, StoreKind } from './types.js';
import { storeSchema } from './schema-of.js';

export interface SemaphoreSpec extends StoreSpecBase {
  kind: 'semaphore';
  /** Prefix of the node names: the semaphore set of machine m is `<name>@m`. */
  name: string;
}

export const SEMAPHORE_CAPABILITIES: Capabilities = {
  scope: 'local',
  blocking: true,
  expiring: false,
  sharing: false,
  fencingToken: null,
  losesLockWhen: [
    'its process exits (auto_release: harmless, the holder is gone)',
    'systemd RemoveIPC=yes deletes the semaphores when the user logs out; the holder is not told',
    'it excludes only processes in the same IPC namespace: another machine or container has its own semaphore',
  ],
};

export const IPC_REMOVAL_REASON = 'semaphore removed (RemoveIPC)';

/**
 * Symfony's SemaphoreStore: a System V semaphore of one unit, keyed by a
 * hash of the lock's key (the lab keeps the key itself; a hash collision
 * between two keys is not modelled). `sem_get` with auto_release frees it
 * when the process exits; `sem_acquire` blocks natively; it is exclusive only,
 * never expires, and lives in the IPC namespace of one machine or container.
 * Release is `sem_remove` on the handle the holder got, so only the holder
 * can release; after the semaphore has been removed and made again, the old
 * handle no longer names it.
 *
 * Not modelled: two keys whose hashes collide sharing one semaphore, and the
 * kernel's limits on how many semaphores may exist.
 */
export const SEMAPHORE: StoreKind = {
  kind: 'semaphore',
  title: 'Semaphore (System V, per machine)',
  capabilities: SEMAPHORE_CAPABILITIES,
  hazardScenario: 'semaphore-two-containers',
  starter: () => ({ kind: 'semaphore' }),
  faults: ['ipc-removal'],
  plainGetSet: false,
  schema: storeSchema({
    kind: 'semaphore',
    description:
      "Symfony's SemaphoreStore: a System V semaphore in each machine's (or container's) own IPC namespace. Exclusive, blocking, never expires, freed when the process exits; systemd RemoveIPC=yes can delete it under a holder.",
    name: { default: 'semaphore', description: 'Names the per-machine semaphore sets in the trace: the one on machine m is <name>@m.' },
  }),
  normalize(input: Record<string, unknown>): SemaphoreSpec {
    // Nothing refers to other parts of the scenario; the core checks the ipc-removal fault's machine.
    return { kind: 'semaphore', name: (input.name as string | undefined) ?? 'semaphore' };
  },
  // One semaphore set per machine, named after the machine, which this spec alone does not list; faults aim at machines.
  nodeNames: () => [],
  create(world: World, spec: StoreSpecBase, scenario: Scenario) {
    const sem = spec as SemaphoreSpec;
    const nodes = localNodes(world, sem.name, scenario, { sharing: false });
    return {
      nodes,
      fault(f: FaultSpec, index: number) {
        if (f.kind !== 'ipc-removal') return;
        const node = nodes.get(localNodeName(sem.name, f.machine));
        if (node === undefined) return;
        world.record('ipc.removed', 'faults', node.machine, { data: { fault: index, semaphores: node.heldCount() } });
        node.removeAll(IPC_REMOVAL_REASON);
      },
    };
  },
  driver(spec: StoreSpecBase, client: ClientSpec) {
    return new LocalDriver({ name: localNodeName(spec.name, client.machine) }, (key) => key, { store: 'SemaphoreStore', exception: 'ErrorException' });
  },
};
