import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { runScenario } from '../../sim/run.js';
import type { LockOp, LockReply, StoreNode } from '../../sim/stores/types.js';
import type { TraceDocument, TraceEvent } from '../../sim/trace/types.js';
import { World } from '../../sim/world/world.js';

/** A reply that came later, through `caller.respond`, with the true time it was sent. */
export interface LateReply {
  readonly client: string;
  readonly msg: number;
  readonly atUs: number;
  readonly reply: LockReply;
}

/**
 * A store node on machine "db" in an otherwise empty world, driven by
 * requests at chosen true times, so each documented behaviour can be tested
 * on the model alone. Unlike Redis these stores may hold a reply (a blocked
 * lock); such replies are collected in `late`.
 */
export class NodeHarness<N extends StoreNode> {
  readonly world = new World(1, { latencyMinUs: 1000, latencyMaxUs: 1000, loss: 0 });
  readonly node: N;
  readonly late: LateReply[] = [];
  private msg = 0;

  constructor(make: (world: World) => N) {
    this.world.addMachine('db', 0, 0);
    this.node = make(this.world);
  }

  /** Sends `op` as `client` at true time `atUs` (after running the world up to then); returns the reply, or 'deferred'. */
  at(atUs: number, client: string, op: LockOp | Record<string, unknown>): LockReply | 'deferred' {
    this.advance(atUs);
    if (!this.node.isUp()) throw new Error('node is down');
    const msg = ++this.msg;
    const reply = this.node.handle(op as LockOp, {
      process: client,
      machine: 'app',
      msg,
      respond: (r: unknown) => this.late.push({ client, msg, atUs: this.world.nowUs, reply: r as LockReply }),
    });
    return typeof reply === 'symbol' ? 'deferred' : reply;
  }

  /** Runs every event up to and including true time `atUs`. */
  advance(atUs: number): void {
    this.world.kernel.run({ maxEvents: 1_000_000, maxTimeUs: atUs });
    if (this.world.nowUs < atUs) this.world.kernel.at(atUs, () => {});
    this.world.kernel.run({ maxEvents: 1_000_000, maxTimeUs: atUs });
  }

  /** Store events as `time kind owner`, for compact expectations. */
  kinds(): string[] {
    return this.world.trace.events.map((e) => `${e.timeUs} ${e.kind}${e.owner === undefined ? '' : ` ${e.owner}`}`);
  }

  events(kind: string): TraceEvent[] {
    return this.world.trace.events.filter((e) => e.kind === kind);
  }
}

/** Normalizes and runs a scenario document written inline in a test. */
export function runDoc(doc: Record<string, unknown>): TraceDocument {
  const scenario = normalizeScenario({ name: 'test', machines: [{ name: 'app1' }, { name: 'app2' }, { name: 'db' }], ...doc }, 'test');
  return runScenario(scenario);
}

/** The events of one kind in a run, optionally of one actor. */
export function pick(doc: TraceDocument, kind: string, actor?: string): TraceEvent[] {
  return doc.events.filter((e) => e.kind === kind && (actor === undefined || e.actor === actor));
}
