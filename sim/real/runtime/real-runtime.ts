import { RngStreams, type Rng } from '../../kernel/rng.js';
import type { CallResult, Effect, Runtime, Script, Steps } from '../../runtime/types.js';
import { ScriptStack } from '../../runtime/script-stack.js';
import type { EventFields } from '../../trace/recorder.js';
import type { Belief, TraceEvent } from '../../trace/types.js';
import { LocalClock } from '../../world/clock.js';
import { RefusedError, type RealNode, type StoreFact } from '../adapters/types.js';
import type { RunClock } from './time.js';

/** Message ids of a forked child start this far above its parent's (each client has a block of a million). */
const FORK_MSG_BLOCK = 100_000;

/**
 * The least a write waits for the protected resource's answer. In the
 * simulation it answers within the network's latency; here it lives in the
 * runner, reached through the client process's IPC channel, which a busy
 * machine can hold up for longer than a scenario's short request timeout.
 */
const RESOURCE_WAIT_MS_MIN = 2_000;

/** An event as a process records it; the runner numbers the merged trace. */
export type RawEvent = Omit<TraceEvent, 'seq'>;

/** Where a request for a name that is not a store node goes (the protected resource, in the runner). */
export type Forward = (to: string, request: unknown, msg: number) => Promise<unknown>;

/** A scenario machine's clock in a real run: true time plus its offset and drift, stepped by clock-jump faults. */
export type MachineClocks = ReadonlyMap<string, LocalClock>;

export interface RealRuntimeOptions {
  readonly process: string;
  readonly machine: string;
  readonly clock: RunClock;
  /** Every scenario machine's clock (store events carry their node's machine clock). */
  readonly machines: MachineClocks;
  readonly seed: number;
  /** The real store nodes, by the names the scenario gives them, and the machine each lives on. */
  readonly nodes: ReadonlyMap<string, RealNode>;
  readonly nodeMachines: ReadonlyMap<string, string>;
  /** Requests to names that are not store nodes (the resource). */
  readonly forward: Forward;
  readonly emit: (e: RawEvent) => void;
  /** Message ids are unique across the processes of a run: each gets its own block. */
  readonly msgBase: number;
  /** Whether a partition cuts requests from `machine` to `node` right now (the runtime drops them). */
  readonly cut?: (machine: string, node: string) => boolean;
  /** Store nodes grouped for a quorum (Redlock, Combined): their lock events carry the group, as in the simulation. */
  readonly groups?: ReadonlyMap<string, { group: string; quorum: number }>;
}

/** Builds the clocks of a scenario's machines. */
export function machineClocks(machines: ReadonlyArray<{ name: string; clockOffsetMs: number; clockDriftPpm: number }>): Map<string, LocalClock> {
  return new Map(machines.map((m) => [m.name, new LocalClock(Math.round(m.clockOffsetMs * 1000), m.clockDriftPpm)]));
}

/**
 * The real-time implementation of the runtime seam (sim/runtime): one client
 * process's clock, trace, message ids, random streams and threads, with every
 * call carried out for real — timers on this process's clock, requests to
 * real servers through the adapters, and the facts their replies prove
 * recorded as the store nodes' events. The lifecycle and the drivers that run
 * on it are the simulation's own.
 */
export class RealRuntime implements Runtime {
  readonly process: string;
  readonly machine: string;
  readonly nodeMachines: ReadonlyMap<string, string>;
  private readonly streams: RngStreams;
  private nextMsg: number;
  private readonly clockOf: LocalClock;
  /** False once the main script has ended: the process exits and its background threads stop. */
  private running = true;
  /** True time until which the process is stalled (a GC pause the workload draws). */
  private stalledUntilUs = 0;
  /** Forked children still running: the OS process stays until they have exited too. */
  private readonly children: Array<Promise<void>> = [];
  private forks = 0;

  constructor(private readonly opts: RealRuntimeOptions) {
    this.process = opts.process;
    this.machine = opts.machine;
    this.nodeMachines = opts.nodeMachines;
    this.streams = new RngStreams(opts.seed);
    this.nextMsg = opts.msgBase;
    const c = opts.machines.get(opts.machine);
    if (c === undefined) throw new Error(`no machine named ${opts.machine}`);
    this.clockOf = c;
  }

  localNow(): number {
    return this.clockOf.read(this.opts.clock.nowUs());
  }

  record(kind: string, fields: EventFields, key: string | undefined, believes: Belief | undefined): void {
    const now = this.opts.clock.nowUs();
    this.emitEvent(now, kind, this.process, this.machine, this.clockOf.read(now), fields, key ?? fields.key, believes ?? fields.believes);
  }

  newMsg(): number {
    return this.nextMsg++;
  }

  rng(name: string): Rng {
    return this.streams.stream(name);
  }

  thread(script: Script<void>): void {
    void this.run(script);
  }

  stall(durationUs: number): void {
    this.stalledUntilUs = Math.max(this.stalledUntilUs, this.opts.clock.nowUs() + durationUs);
  }

  /** Runs the client's main script; resolves when it has ended (its process then exits), and every child it forked has exited too. */
  async main(script: Steps<void>): Promise<void> {
    try {
      await this.run(script);
    } finally {
      this.running = false;
    }
    while (this.children.length > 0) await this.children.shift();
  }

  /**
   * pcntl_fork(), within this OS process: the child is a process of the
   * trace of its own (its own name, messages, threads and exit) that shares
   * this one's connections, as a forked child shares its parent's sockets.
   * A SIGSTOP or SIGKILL of the client stops or kills the child with it.
   */
  fork(name: string, body: (rt: Runtime) => Steps<void>): void {
    const child = new RealRuntime({ ...this.opts, process: name, msgBase: this.opts.msgBase + FORK_MSG_BLOCK * ++this.forks });
    child.stalledUntilUs = this.stalledUntilUs;
    this.children.push(child.main(body(child)));
  }

  /** Records a store node's event, stamped with the node's machine clock. */
  recordStore(node: string, kind: string, fields: EventFields): void {
    const now = this.opts.clock.nowUs();
    const machine = this.opts.nodeMachines.get(node) ?? this.machine;
    const local = this.opts.machines.get(machine)?.read(now);
    this.emitEvent(now, kind, node, machine, local, fields, fields.key, undefined);
  }

  private recordFacts(node: string, facts: readonly StoreFact[], msg: number): void {
    for (const f of facts) {
      this.recordStore(f.node ?? node, f.kind, {
        key: f.key,
        owner: f.owner,
        fence: f.fence,
        ttlUs: f.ttlUs,
        peer: this.process,
        msg,
        reason: f.reason,
        data: f.data,
      });
    }
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
    // Through JSON, as the trace is written: undefined fields leave no trace.
    this.opts.emit(JSON.parse(JSON.stringify(e)) as RawEvent);
  }

  private async run(script: Steps<void>): Promise<void> {
    const stack = new ScriptStack(script);
    let input: unknown = undefined;
    for (;;) {
      const effect = stack.resume(input);
      if (effect === undefined) return;
      input = await this.perform(effect);
      if (!this.running) return;
    }
  }

  private async perform(effect: Effect): Promise<unknown> {
    // A stall holds up whatever any thread of the process does next, until it is over.
    if (this.stalledUntilUs > this.opts.clock.nowUs()) await this.opts.clock.until(this.stalledUntilUs);
    switch (effect.k) {
      case 'sleep': {
        const ms = this.clockOf.trueDuration(effect.localUs) / 1000;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.round(ms))));
        return undefined;
      }
      case 'call':
        return this.call(effect.to, effect.request, effect.timeoutLocalUs, effect.msg);
      case 'callAll':
        return Promise.all(effect.calls.map((c) => this.call(c.to, c.request, c.timeoutLocalUs, c.msg)));
    }
  }

  /** Sends a request for real and waits for the reply, a refusal, or the timeout (by this process's clock). */
  private async call(to: string, request: unknown, timeoutLocalUs: number, msg: number): Promise<CallResult<unknown>> {
    const cut = this.opts.cut?.(this.machine, to) === true;
    const askedMs = Math.ceil(this.clockOf.trueDuration(timeoutLocalUs) / 1000);
    // The protected resource is the runner's own stand-in, a message away: how long it takes is the harness's load, not a server's.
    const timeoutMs = cut || this.opts.nodes.has(to) ? askedMs : Math.max(askedMs, RESOURCE_WAIT_MS_MIN);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<CallResult<unknown>>((resolve) => {
      // Longer than a timer can wait: the run's own budget ends it first.
      timer = setTimeout(() => resolve({ status: 'timeout', msg }), Math.min(timeoutMs, 2 ** 31 - 1));
    });
    try {
      if (cut) {
        this.emitEvent(this.opts.clock.nowUs(), 'msg.lost', 'net', this.machine, undefined, { peer: to, msg, reason: 'partition' }, undefined, undefined);
        return await timeout;
      }
      return await Promise.race([this.deliver(to, request, msg), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async deliver(to: string, request: unknown, msg: number): Promise<CallResult<unknown>> {
    const node = this.opts.nodes.get(to);
    if (node === undefined) return { status: 'reply', reply: await this.opts.forward(to, request, msg), msg };
    try {
      const a = await node.handle(request as never, { client: this.process, msg });
      this.recordFacts(node.name, a.facts, msg);
      return { status: 'reply', reply: a.reply, msg };
    } catch (err) {
      if (err instanceof RefusedError) {
        // A client library that is not connected refuses at once, without I/O: let the event loop run (its reconnect,
        // the IPC channel) before the script goes on, or a script that retries straight away never lets it.
        await new Promise((resolve) => setImmediate(resolve));
        return { status: 'refused', msg };
      }
      throw err;
    }
  }
}
