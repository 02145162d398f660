import { RngStreams } from '../../kernel/rng.js';
import type { CallResult, Endpoint } from '../../world/endpoint.js';
import { Machine } from '../../world/machine.js';
import type { Effect, Script } from '../../world/process.js';
import type { EventFields } from '../../trace/recorder.js';
import type { Belief, TraceEvent } from '../../trace/types.js';
import { RefusedError, type RealNode, type StoreFact } from '../adapters/types.js';
import type { RunClock } from './time.js';

/** An event as a process records it; the runner numbers the merged trace. */
export type RawEvent = Omit<TraceEvent, 'seq'>;

/** Where a request for a name that is not a store node goes (the protected resource). */
export type Forward = (to: string, request: unknown, msg: number) => Promise<unknown>;

export interface RealWorldOptions {
  readonly clock: RunClock;
  readonly seed: number;
  /** The real store nodes, by the names the scenario gives them. */
  readonly nodes: ReadonlyMap<string, RealNode>;
  /** Requests to endpoints that are not store nodes (the resource, in the runner). */
  readonly forward: Forward;
  readonly emit: (e: RawEvent) => void;
  /** Message ids are unique across the processes of a run: each gets its own block. */
  readonly msgBase: number;
  /** Requests from `machine` to `node` that a partition cuts right now (the runtime drops them). */
  readonly cut?: (machine: string, node: string) => boolean;
  /** Store nodes grouped for a quorum (Redlock, Combined): their lock events carry the group, as in the simulation. */
  readonly groups?: ReadonlyMap<string, { group: string; quorum: number }>;
}

/**
 * The real-time runtime a client's lock code runs on: the same `Client`
 * lifecycle and the same store drivers as in the simulation, whose effects
 * (sleep, call, callAll) are carried out for real — timers on this process's
 * clock, requests to real servers through the adapters — and whose events
 * are stamped with the run's one monotonic clock. It offers exactly what the
 * lifecycle and the drivers ask of the simulated world.
 */
export class RealWorld {
  readonly rng: RngStreams;
  private readonly machines = new Map<string, Machine>();
  private readonly processes = new Map<string, RealProcess>();
  private nextMsg: number;

  constructor(readonly opts: RealWorldOptions) {
    this.rng = new RngStreams(opts.seed);
    this.nextMsg = opts.msgBase;
  }

  get nowUs(): number {
    return this.opts.clock.nowUs();
  }

  addMachine(name: string, offsetUs: number, driftPpm: number): Machine {
    const m = new Machine(name, offsetUs, driftPpm);
    this.machines.set(name, m);
    return m;
  }

  machine(name: string): Machine {
    const m = this.machines.get(name);
    if (m === undefined) throw new Error(`no machine named ${name}`);
    return m;
  }

  process(name: string): RealProcess {
    const p = this.processes.get(name);
    if (p === undefined) throw new Error(`no process named ${name}`);
    return p;
  }

  newMsg(): number {
    return this.nextMsg++;
  }

  record(kind: string, actor: string, machine: Machine, fields: EventFields = {}, key?: string, believes?: Belief): void {
    const now = this.nowUs;
    this.emitEvent(now, kind, actor, machine.name, machine.clock.read(now), fields, key ?? fields.key, believes ?? fields.believes);
  }

  recordGlobal(kind: string, actor: string, machine: string, fields: EventFields = {}): void {
    this.emitEvent(this.nowUs, kind, actor, machine, undefined, fields, fields.key, fields.believes);
  }

  private emitEvent(
    timeUs: number,
    kind: string,
    actor: string,
    machine: string,
    localUs: number | undefined,
    f: EventFields,
    key: string | undefined,
    believes: Belief | undefined,
  ): void {
    let data = f.data;
    const g = kind.startsWith('lock.') ? this.opts.groups?.get(actor) : undefined;
    if (g !== undefined) data = { ...data, group: g.group, quorum: g.quorum };
    const e = {
      timeUs,
      kind,
      actor,
      machine,
      localUs,
      key,
      owner: f.owner,
      fence: f.fence,
      ttlUs: f.ttlUs,
      peer: f.peer,
      msg: f.msg,
      reason: f.reason,
      believes,
      data,
    };
    this.opts.emit(JSON.parse(JSON.stringify(e)) as RawEvent);
  }

  /** Starts `script` as process `name` on `machine` when true time reaches `atUs`. */
  spawn(name: string, machine: Machine, script: (p: RealProcess) => Script<void>, atUs: number): RealProcess {
    const p = new RealProcess(this, name, machine);
    this.processes.set(name, p);
    void this.opts.clock.until(atUs).then(() => p.start(script(p)));
    return p;
  }

  onProcessExit(_listener: (p: RealProcess) => void): void {
    // Real servers notice a process's exit themselves: its connections close.
  }

  /** Records the facts a store's reply proves, as that store node's events. */
  recordFacts(node: string, machine: Machine, facts: readonly StoreFact[], client: string, msg: number): void {
    for (const f of facts) {
      this.record(f.kind, node, machine, { key: f.key, owner: f.owner, fence: f.fence, ttlUs: f.ttlUs, peer: client, msg, reason: f.reason, data: f.data });
    }
  }

  /** Sends a request for real and waits for the reply, a refusal, or the timeout (by the sender's clock). */
  async call(p: RealProcess, to: Endpoint, request: unknown, timeoutLocalUs: number, msg: number): Promise<CallResult<unknown>> {
    const node = this.opts.nodes.get(to.name);
    const timeoutUs = p.machine.clock.trueDuration(timeoutLocalUs);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<CallResult<unknown>>((resolve) => {
      // Timers beyond 2^31 ms are never reached within a run's budget.
      timer = setTimeout(() => resolve({ status: 'timeout', msg }), Math.min(Math.ceil(timeoutUs / 1000), 2 ** 31 - 1));
    });
    if (this.opts.cut?.(p.machine.name, to.name) === true) {
      this.recordGlobal('msg.lost', 'net', p.machine.name, { peer: to.name, msg, reason: 'partition' });
      return timeout;
    }
    const work: Promise<CallResult<unknown>> = (async () => {
      if (node === undefined) return { status: 'reply', reply: await this.opts.forward(to.name, request, msg), msg } as const;
      try {
        const a = await node.handle(request as never, { client: p.name, msg });
        this.recordFacts(node.name, this.machines.get(to.machine.name) ?? p.machine, a.facts, p.name, msg);
        return { status: 'reply', reply: a.reply, msg } as const;
      } catch (err) {
        if (err instanceof RefusedError) return { status: 'refused', msg } as const;
        throw err;
      }
    })();
    try {
      return await Promise.race([work, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * A client's process as the lifecycle sees it: its machine's clock and its
 * threads. Pauses and crashes are not played here: the runner stops and
 * kills the real OS process, which stops every thread at once.
 */
export class RealProcess {
  alive = true;
  onResume: (() => void) | undefined;
  /** Resolves when the main script has ended (or failed). */
  readonly done: Promise<void>;
  private finish: () => void = () => undefined;
  private readonly threads = new Set<Promise<void>>();

  constructor(
    readonly world: RealWorld,
    readonly name: string,
    readonly machine: Machine,
  ) {
    this.done = new Promise((resolve) => (this.finish = resolve));
  }

  get paused(): boolean {
    return false;
  }

  localNow(): number {
    return this.machine.clock.read(this.world.nowUs);
  }

  start(script: Script<void>): void {
    // When the main script ends, the process exits: its other threads (heartbeats) stop with it.
    void this.run(script).finally(() => {
      this.alive = false;
      this.finish();
    });
  }

  thread(script: Script<void>): void {
    const t = this.run(script).finally(() => this.threads.delete(t));
    this.threads.add(t);
  }

  pause(_durationUs: number): void {
    // A pause is a real SIGSTOP sent by the runner.
  }

  crash(): void {
    this.alive = false;
  }

  private async run(script: Script<void>): Promise<void> {
    let input: unknown = undefined;
    for (;;) {
      if (!this.alive) return;
      const r = script.next(input);
      if (r.done === true) return;
      input = await this.perform(r.value);
    }
  }

  private async perform(effect: Effect): Promise<unknown> {
    switch (effect.k) {
      case 'sleep': {
        const ms = this.machine.clock.trueDuration(effect.localUs) / 1000;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.round(ms))));
        return undefined;
      }
      case 'call':
        return this.world.call(this, effect.to, effect.request, effect.timeoutLocalUs, effect.msg);
      case 'callAll':
        return Promise.all(effect.calls.map((c) => this.world.call(this, c.to, c.request, c.timeoutLocalUs, c.msg)));
    }
  }
}
