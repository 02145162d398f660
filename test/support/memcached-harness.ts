import type { CasCommand, MemcachedReply } from '../../sim/stores/memcached-driver.js';
import { MemcachedNode, type MemcachedSpec } from '../../sim/stores/memcached.js';
import type { LockOp } from '../../sim/stores/types.js';
import { World } from '../../sim/world/world.js';

/**
 * A memcached node on machine "cache" in an otherwise empty world, driven by
 * commands at chosen true times, so each documented behaviour can be tested
 * on the model alone.
 */
export class MemcachedHarness {
  readonly world: World;
  readonly node: MemcachedNode;
  private msg = 0;

  constructor(spec: Partial<MemcachedSpec> = {}, seed = 1) {
    this.world = new World(seed, { latencyMinUs: 1000, latencyMaxUs: 1000, loss: 0 });
    this.world.addMachine('cache', 0, 0);
    this.node = new MemcachedNode(this.world, {
      kind: 'memcached',
      name: 'memcached',
      machine: 'cache',
      memoryBytes: 64 * 1024 * 1024,
      keyPrefix: '',
      initialTtlMs: 300_000,
      evictions: true,
      ...spec,
    });
  }

  /** Sends `op` as `client` at true time `atUs` (after running the world up to then) and returns the reply. */
  at(atUs: number, client: string, op: LockOp | CasCommand): MemcachedReply {
    this.advance(atUs);
    if (!this.node.isUp()) throw new Error('node is down');
    return this.node.handle(op, { process: client, machine: 'app', msg: ++this.msg, respond: () => {} });
  }

  advance(atUs: number): void {
    this.world.kernel.run({ maxEvents: 1_000_000, maxTimeUs: atUs });
    if (this.world.nowUs < atUs) this.world.kernel.at(atUs, () => {});
    this.world.kernel.run({ maxEvents: 1_000_000, maxTimeUs: atUs });
  }

  kinds(): string[] {
    return this.world.trace.events.map((e) => `${e.timeUs} ${e.kind}${e.owner === undefined ? '' : ` ${e.owner}`}`);
  }
}

export const add = (owner: string, ttlUs: number, key = 'job'): LockOp => ({ op: 'acquire', key, owner, ttlUs });
export const gets = (key = 'job'): LockOp => ({ op: 'get', key });
export const cas = (owner: string, ttlUs: number, casId: number, key = 'job'): CasCommand => ({ op: 'refresh', key, owner, ttlUs, casId });
