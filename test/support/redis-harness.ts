import type { RedisSpec } from '../../sim/scenario/types.js';
import { RedisNode } from '../../sim/stores/redis.js';
import type { LockOp, LockReply } from '../../sim/stores/types.js';
import { World } from '../../sim/world/world.js';

/**
 * A Redis node on machine "db" in an otherwise empty world, driven by
 * requests at chosen true times, so each documented behaviour can be tested
 * on the model alone.
 */
export class RedisHarness {
  readonly world = new World(1, { latencyMinUs: 1000, latencyMaxUs: 1000, loss: 0 });
  readonly node: RedisNode;
  private msg = 0;

  constructor(spec: Partial<RedisSpec> = {}) {
    this.world.addMachine('db', 0, 0);
    this.node = new RedisNode(this.world, { kind: 'redis', name: 'redis', machine: 'db', persistence: 'none', fencingTokenStart: 1, keyPrefix: '', ...spec });
  }

  /** Sends `op` as `client` at true time `atUs` (after running the world up to then) and returns the reply. */
  at(atUs: number, client: string, op: LockOp): LockReply {
    this.advance(atUs);
    if (!this.node.isUp()) throw new Error('node is down');
    const reply = this.node.handle(op, { process: client, machine: 'app', msg: ++this.msg, respond: () => {} });
    if (typeof reply === 'symbol') throw new Error('Redis never defers a reply');
    return reply;
  }

  /** Runs every event up to and including true time `atUs`. */
  advance(atUs: number): void {
    this.world.kernel.run({ maxEvents: 1_000_000, maxTimeUs: atUs });
    if (this.world.nowUs < atUs) this.world.kernel.at(atUs, () => {});
    this.world.kernel.run({ maxEvents: 1_000_000, maxTimeUs: atUs });
  }

  kinds(): string[] {
    return this.world.trace.events.map((e) => `${e.timeUs} ${e.kind}${e.owner === undefined ? '' : ` ${e.owner}`}`);
  }
}

export const acquire = (owner: string, ttlUs: number, key = 'job'): LockOp => ({ op: 'acquire', key, owner, ttlUs });
