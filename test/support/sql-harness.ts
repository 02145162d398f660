import { MongoDbNode, type MongoDbSpec } from '../../sim/stores/mongodb.js';
import { ExpiringTableNode, type TableRules } from '../../sim/stores/sql.js';
import type { ClientClockOp } from '../../sim/stores/table-driver.js';
import type { LockOp, LockReply } from '../../sim/stores/types.js';
import { US_PER_MS } from '../../sim/time.js';
import { World } from '../../sim/world/world.js';

/**
 * A lock table (SQL) or collection (MongoDB) on machine "db", with client
 * machines app1 (clock exact) and app2 (clock `app2OffsetUs` ahead), driven by
 * statements at chosen true times. With a client-clock table each statement
 * carries its sender's clock reading, as the real drivers do.
 */
export class TableHarness {
  readonly world = new World(1, { latencyMinUs: 1000, latencyMaxUs: 1000, loss: 0 });
  readonly node: ExpiringTableNode;
  private msg = 0;

  private constructor(make: (w: World) => ExpiringTableNode, app2OffsetUs: number, dbOffsetUs: number) {
    this.world.addMachine('db', dbOffsetUs, 0);
    this.world.addMachine('app1', 0, 0);
    this.world.addMachine('app2', app2OffsetUs, 0);
    this.node = make(this.world);
  }

  static sql(clock: 'server' | 'client', opts: { app2OffsetUs?: number; dbOffsetUs?: number } = {}): TableHarness {
    const rules: TableRules = { unitUs: 1_000_000, clock, refreshInserts: false, noun: 'row' };
    return new TableHarness((w) => new ExpiringTableNode(w, 'sql', 'db', rules), opts.app2OffsetUs ?? 0, opts.dbOffsetUs ?? 0);
  }

  static mongo(opts: { app2OffsetUs?: number; dbOffsetUs?: number; spec?: Partial<MongoDbSpec> } = {}): TableHarness {
    const spec: MongoDbSpec = { kind: 'mongodb', name: 'mongodb', machine: 'db', ttlMonitorSec: 60, expireAfterSeconds: 0, keyPrefix: '', ...opts.spec };
    return new TableHarness((w) => new MongoDbNode(w, spec), opts.app2OffsetUs ?? 0, opts.dbOffsetUs ?? 0);
  }

  /** Sends `op` from `client` on `machine` at true time `atUs`, stamped with that machine's clock reading. */
  at(atUs: number, client: string, machine: 'app1' | 'app2', op: LockOp): LockReply {
    this.advance(atUs);
    const stamped: ClientClockOp = { ...op, clientNowUs: this.world.machine(machine).clock.read(this.world.nowUs) };
    return this.node.handle(stamped, { process: client, machine, msg: ++this.msg, respond: () => {} });
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

export const take = (owner: string, ttlUs: number, key = 'job'): LockOp => ({ op: 'acquire', key, owner, ttlUs });
export const extend = (owner: string, ttlUs: number, key = 'job'): LockOp => ({ op: 'refresh', key, owner, ttlUs });
export const release = (owner: string, key = 'job'): LockOp => ({ op: 'release', key, owner });
export const MS = US_PER_MS;
