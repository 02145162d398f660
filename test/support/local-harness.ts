import { InputError } from '../../sim/errors.js';
import { runScenario } from '../../sim/run.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import type { Scenario } from '../../sim/scenario/types.js';
import { FLOCK } from '../../sim/stores/flock.js';
import type { LocalLockNode } from '../../sim/stores/local-table.js';
import { SEMAPHORE } from '../../sim/stores/semaphore.js';
import type { LockOp, LockReply, StoreInstance } from '../../sim/stores/types.js';
import type { TraceDocument } from '../../sim/trace/types.js';
import { DEFER } from '../../sim/world/endpoint.js';
import { Process, World } from '../../sim/world/world.js';

/** A reply that came later, through `caller.respond`, to a request the store held. */
export interface LateReply {
  readonly timeUs: number;
  readonly client: string;
  readonly reply: LockReply;
}

/**
 * The per-machine lock tables of a flock or semaphore store on machines
 * app1 and app2, driven by system calls from named processes at chosen true
 * times, so each documented behaviour can be tested on the model alone.
 */
export class LocalHarness {
  readonly world = new World(1, { latencyMinUs: 1000, latencyMaxUs: 1000, loss: 0 });
  readonly store: StoreInstance;
  readonly late: LateReply[] = [];
  private readonly processes = new Map<string, Process>();
  private msg = 0;

  constructor(readonly kind: 'flock' | 'semaphore') {
    const machines = ['app1', 'app2'];
    for (const m of machines) this.world.addMachine(m, 0, 0);
    const scenario = { machines: machines.map((name) => ({ name, clockOffsetMs: 0, clockDriftPpm: 0 })) } as unknown as Scenario;
    this.store =
      kind === 'flock'
        ? FLOCK.create(this.world, { kind: 'flock', name: 'flock', lockDir: '/var/lock/app' }, scenario)
        : SEMAPHORE.create(this.world, { kind: 'semaphore', name: 'semaphore' }, scenario);
  }

  node(machine = 'app1'): LocalLockNode {
    return this.store.nodes.get(`${this.kind}@${machine}`) as LocalLockNode;
  }

  /** The process `client` (one per client, on `machine`), made on first use. */
  process(client: string, machine = 'app1'): Process {
    let p = this.processes.get(client);
    if (p === undefined) {
      p = new Process(this.world, client, this.world.machine(machine));
      this.processes.set(client, p);
    }
    return p;
  }

  /**
   * Has `client`'s process on `machine` make the call `op` at true time
   * `atUs`; returns the reply, or "waiting" when the kernel holds the call
   * (its answer then lands in `late`).
   */
  at(atUs: number, client: string, op: LockOp, machine = 'app1'): LockReply | 'waiting' {
    this.advance(atUs);
    this.process(client, machine);
    const reply = this.node(machine).handle(op, {
      process: client,
      machine,
      msg: ++this.msg,
      respond: (r) => this.late.push({ timeUs: this.world.nowUs, client, reply: r as LockReply }),
    });
    return reply === DEFER ? 'waiting' : reply;
  }

  /** Kills `client`'s process at `atUs`, as SIGKILL or a fatal error would. */
  crash(atUs: number, client: string): void {
    this.advance(atUs);
    this.process(client).crash();
  }

  /** Runs every event up to and including true time `atUs`. */
  advance(atUs: number): void {
    this.world.kernel.run({ maxEvents: 1_000_000, maxTimeUs: atUs });
    if (this.world.nowUs < atUs) this.world.kernel.at(atUs, () => {});
    this.world.kernel.run({ maxEvents: 1_000_000, maxTimeUs: atUs });
  }

  /** The trace so far, one line per event: time, kind, actor, owner and reason. */
  kinds(): string[] {
    return this.world.trace.events.map(
      (e) => `${e.timeUs} ${e.kind} ${e.actor}${e.owner === undefined ? '' : ` ${e.owner}`}${e.reason === undefined ? '' : ` (${e.reason})`}`,
    );
  }
}

export const lock = (owner: string, extra: { key?: string; shared?: boolean; waitUs?: number | null } = {}): LockOp => ({
  op: 'acquire',
  key: extra.key ?? '/var/lock/app/job.lock',
  owner,
  ttlUs: 300_000_000,
  shared: extra.shared,
  waitUs: extra.waitUs,
});

export const unlock = (owner: string, key = '/var/lock/app/job.lock'): LockOp => ({ op: 'release', key, owner });

/** Normalizes and runs a scenario written inline, as a user would write it. */
export function runInline(doc: Record<string, unknown>, name = 'inline'): TraceDocument {
  return runScenario(normalizeScenario({ name, ...doc }, name));
}

/** The issues `normalizeScenario` raises for `doc`, as `path: message` lines; none when it is valid. */
export function inputIssues(doc: Record<string, unknown>, name = 'inline'): string[] {
  try {
    normalizeScenario({ name, ...doc }, name);
    return [];
  } catch (e) {
    if (e instanceof InputError) return e.issues.map((i) => `${i.path}: ${i.message}`);
    throw e;
  }
}
