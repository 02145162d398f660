import { show } from '../errors.js';
import type { ClientSpec, FaultSpec, Scenario, StoreSpecBase } from '../scenario/types.js';
import type { World } from '../world/world.js';
import { LocalDriver } from './local-driver.js';
import { localNodeName, localNodes } from './local-table.js';
import type { Capabilities, StoreCheck, StoreKind } from './types.js';
import { storeSchema } from './schema-of.js';

export interface FlockSpec extends StoreSpecBase {
  kind: 'flock';
  /** Prefix of the node names: the table on machine m is `<name>@m`. */
  name: string;
  /** The directory the lock files live in; the lock for key k is `<lockDir>/<k>.lock`. A deploy may change it. */
  lockDir: string;
}

export const FLOCK_CAPABILITIES: Capabilities = {
  scope: 'local',
  blocking: true,
  expiring: false,
  sharing: true,
  // FlockStore has waitAndSaveRead() but is no BlockingSharedLockStoreInterface: acquireRead(true) polls.
  blockingShared: 'method',
  fencingToken: null,
  losesLockWhen: [
    'its process exits (the kernel frees it: harmless, the holder is gone)',
    'nothing else, but it excludes only processes on the same machine that open the same path: another machine, or another lockDir after a deploy, is another lock',
  ],
};

const DEFAULT_LOCK_DIR = '/var/lock/app';

/** The lock file for `key`: the path is the lock's identity, so two directories are two locks. */
export function flockPath(lockDir: string, key: string): string {
  return `${lockDir.replace(/\/+$/, '')}/${key}.lock`;
}

/** Why `dir` cannot be a lock directory, or undefined when it can. */
function badLockDir(dir: unknown): string | undefined {
  if (typeof dir !== 'string') return `must be a directory path (a string), got ${show(dir)}`;
  if (!dir.startsWith('/')) return `must be an absolute path: a relative one would depend on each process's working directory, got ${show(dir)}`;
  return undefined;
}

/**
 * Symfony's FlockStore: `flock()` on `<lockDir>/<key>.lock` (the real store
 * hashes the key into the file name; the lab keeps it readable). The lock is
 * in the kernel of the machine the process runs on, so it excludes only
 * processes on that machine, and only those opening the same path; it blocks
 * natively (LOCK_EX without LOCK_NB), shares (LOCK_SH), never expires, and is
 * freed when the process exits. A timed wait (`waitTimeoutMs`) behaves like
 * `flock -w`; Symfony itself waits without a limit.
 *
 * Not modelled: flock over NFS (where Linux turns it into an fcntl lock that
 * other machines do see), converting a held lock between shared and exclusive,
 * and a process exiting normally at the end of its script (the world signals
 * only crashes, so a lock left unreleased stays held until the run ends).
 */
export const FLOCK: StoreKind = {
  kind: 'flock',
  title: 'flock (per-machine file lock)',
  capabilities: FLOCK_CAPABILITIES,
  hazardScenario: 'flock-across-servers',
  // Every machine has its own kernel lock table: nothing to place.
  starter: () => ({ kind: 'flock' }),
  faults: ['deploy', 'lock-file-cleanup'],
  deployable: ['lockDir'],
  plainGetSet: false,
  schema: storeSchema({
    kind: 'flock',
    description:
      "Symfony's FlockStore: flock() on a lock file in each machine's own kernel. Locks never expire, block and share natively, and are freed when the process exits; processes on different machines, or using different directories, never see each other's locks.",
    name: { default: 'flock', description: 'Names the per-machine lock tables in the trace: the one on machine m is <name>@m.' },
    properties: {
      lockDir: {
        type: 'string',
        minLength: 1,
        maxLength: 200,
        default: DEFAULT_LOCK_DIR,
        description:
          'Absolute directory of the lock files; key k is locked as <lockDir>/<k>.lock. A deploy may give some clients another directory (a new release behind a symlink), and another path is another lock.',
      },
    },
  }),
  normalize(input: Record<string, unknown>, check: StoreCheck): FlockSpec {
    const spec: FlockSpec = {
      kind: 'flock',
      name: (input.name as string | undefined) ?? 'flock',
      lockDir: (input.lockDir as string | undefined) ?? DEFAULT_LOCK_DIR,
    };
    const bad = badLockDir(spec.lockDir);
    if (bad !== undefined) check.issues.push({ path: `${check.path}.lockDir`, message: `the flock store's lockDir ${bad}` });
    // The core checks only that a deploy names existing fields; the new directory must be usable too.
    check.scenario.faults.forEach((f, i) => {
      if (f.kind !== 'deploy' || !('lockDir' in f.store)) return;
      const badDeploy = badLockDir(f.store.lockDir);
      if (badDeploy !== undefined) check.issues.push({ path: `faults[${i}].store.lockDir`, message: `the flock store's lockDir ${badDeploy}` });
    });
    return spec;
  },
  // One table per machine, named after the machine, which this spec alone does not list; no fault targets them by name.
  nodeNames: () => [],
  create(world: World, spec: StoreSpecBase, scenario: Scenario) {
    const flock = spec as FlockSpec;
    const nodes = localNodes(world, flock.name, scenario, { sharing: true });
    return {
      nodes,
      fault(f: FaultSpec, index: number) {
        if (f.kind !== 'lock-file-cleanup') return;
        const node = nodes.get(localNodeName(flock.name, f.machine));
        if (node === undefined) return;
        const files = node.unlinkFiles(f.dir, 'its lock file was deleted: the lock it holds is on a file nobody else opens');
        world.record('lock-files.deleted', 'faults', node.machine, { data: { fault: index, files, dir: f.dir ?? '' } });
      },
    };
  },
  driver(spec: StoreSpecBase, client: ClientSpec) {
    const flock = spec as FlockSpec;
    return new LocalDriver(
      { name: localNodeName(flock.name, client.machine) },
      (key) => flockPath(flock.lockDir, key),
      { store: 'FlockStore', exception: 'LockStorageException' },
      (patch) => (typeof patch.lockDir === 'string' ? (key: string) => flockPath(patch.lockDir as string, key) : undefined),
    );
  },
};
