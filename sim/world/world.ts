import { Kernel, type Timer } from '../kernel/kernel.js';
import { RngStreams } from '../kernel/rng.js';
import { Recorder, type EventFields } from '../trace/recorder.js';
import type { Belief } from '../trace/types.js';

const NO_FIELDS: EventFields = {};
import type { Caller, CallResult, Endpoint } from './endpoint.js';
import { Machine } from './machine.js';
import { CUT, Network, type NetworkConfig } from './network.js';
import type { Effect, Script } from './process.js';

/**
 * The simulated world: virtual time, seeded randomness, machines, the network
 * and the trace. Processes run scripts here; store nodes and the resource are
 * endpoints they call.
 */
export class World {
  readonly kernel = new Kernel();
  readonly rng: RngStreams;
  readonly trace = new Recorder();
  readonly network: Network;
  private readonly machines = new Map<string, Machine>();
  private readonly processes = new Map<string, Process>();
  private readonly exitListeners: Array<(p: Process) => void> = [];
  private nextMsg = 1;

  constructor(seed: number, network: NetworkConfig) {
    this.rng = new RngStreams(seed);
    this.network = new Network(network, this.rng);
  }

  get nowUs(): number {
    return this.kernel.nowUs;
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

  process(name: string): Process {
    const p = this.processes.get(name);
    if (p === undefined) throw new Error(`no process named ${name}`);
    return p;
  }

  /** Records a trace event stamped with the current true time and `machine`'s clock. */
  record(kind: string, actor: string, machine: Machine, fields: EventFields = NO_FIELDS, key?: string, believes?: Belief): void {
    const now = this.kernel.nowUs;
    this.trace.record(now, kind, actor, machine.name, machine.clock.read(now), fields, key ?? fields.key, believes ?? fields.believes);
  }

  /** Records an event that belongs to no machine's clock (network, fault injector). */
  recordGlobal(kind: string, actor: string, machine: string, fields: EventFields = NO_FIELDS): void {
    this.trace.record(this.kernel.nowUs, kind, actor, machine, undefined, fields, fields.key, fields.believes);
  }

  spawn(name: string, machine: Machine, script: (p: Process) => Script<void>, atUs: number): Process {
    const p = new Process(this, name, machine);
    this.processes.set(name, p);
    this.kernel.at(atUs, () => p.start(script(p)));
    return p;
  }

  /** Stores that hold per-process state (flock, sessions) subscribe here. */
  onProcessExit(listener: (p: Process) => void): void {
    this.exitListeners.push(listener);
  }

  processExited(p: Process): void {
    for (const listener of this.exitListeners) listener(p);
  }

  /**
   * Sends `request` from process `p` to endpoint `to`. The reply, a refusal or
   * a timeout is handed to `done` exactly once, by true time order.
   */
  call(p: Process, to: Endpoint, request: unknown, timeoutLocalUs: number, msg: number, done: (r: CallResult<unknown>) => void): void {
    const pending = new PendingCall(this, p, to, request, msg, done);
    const delayUs = this.network.delayUs(p.machine.name, to.machine.name);
    if (delayUs >= 0) this.kernel.after(delayUs, () => pending.arrive());
    else this.recordGlobal('msg.lost', 'net', p.machine.name, { peer: to.name, msg, reason: delayUs === CUT ? 'partition' : 'loss' });
    // Scheduled after the delivery, so a reply landing on the same microsecond wins the tie.
    pending.timeout = this.kernel.after(p.machine.clock.trueDuration(timeoutLocalUs), () => pending.settle({ status: 'timeout', msg }));
  }

  /** A fresh message id for a request about to be sent. */
  newMsg(): number {
    return this.nextMsg++;
  }
}

/**
 * One request in flight: its delivery, the handling at the far end, the
 * reply's way back, and its timeout. It is also the `Caller` the endpoint
 * sees, which saves an object per request.
 */
class PendingCall implements Caller {
  timeout: Timer | undefined;
  readonly process: string;
  readonly machine: string;
  private settled = false;
  private result: CallResult<unknown> | undefined;

  constructor(
    private readonly world: World,
    private readonly p: Process,
    private readonly to: Endpoint,
    private readonly request: unknown,
    readonly msg: number,
    private readonly done: (r: CallResult<unknown>) => void,
  ) {
    this.process = p.name;
    this.machine = p.machine.name;
  }

  /** The request reaches the endpoint, which handles it (or refuses the connection) and replies. */
  arrive(): void {
    const { world, to, msg } = this;
    this.result = to.isUp() ? { status: 'reply', reply: to.handle(this.request, this), msg } : { status: 'refused', msg };
    const delayUs = world.network.delayUs(to.machine.name, this.machine);
    if (delayUs < 0) {
      world.recordGlobal('msg.lost', 'net', to.machine.name, { peer: this.process, msg, reason: delayUs === CUT ? 'partition' : 'loss' });
      return;
    }
    world.kernel.after(delayUs, () => this.settle(this.result!));
  }

  settle(r: CallResult<unknown>): void {
    if (this.settled) return;
    this.settled = true;
    this.world.kernel.cancel(this.timeout);
    this.done(r);
  }
}

/**
 * A process running a script. A paused process keeps its timers and its
 * sockets: whatever completes while it is stopped is handed to it when it
 * resumes, the way a GC pause or SIGSTOP behaves. A crashed process is gone.
 */
export class Process {
  alive = true;
  private started = false;
  private pausedUntilUs = -1;
  private script: Script<void> | undefined;
  /** Identifies the effect being waited on, so late results are ignored. */
  private waitToken = 0;
  private deferred: { value: unknown } | undefined;

  constructor(
    readonly world: World,
    readonly name: string,
    readonly machine: Machine,
  ) {}

  get paused(): boolean {
    return this.world.nowUs < this.pausedUntilUs;
  }

  /** The process's machine clock now. */
  localNow(): number {
    return this.machine.clock.read(this.world.nowUs);
  }

  start(script: Script<void>): void {
    if (!this.alive) return;
    this.started = true;
    this.script = script;
    if (this.paused) {
      this.deferred = { value: undefined };
      return;
    }
    this.step(undefined);
  }

  pause(durationUs: number): void {
    if (!this.alive) return;
    const until = this.world.nowUs + durationUs;
    if (until <= this.pausedUntilUs) return;
    this.pausedUntilUs = until;
    this.world.kernel.at(until, () => this.maybeResume());
  }

  crash(): void {
    if (!this.alive) return;
    this.alive = false;
    this.deferred = undefined;
    this.script = undefined;
    this.world.processExited(this);
  }

  get hasStarted(): boolean {
    return this.started;
  }

  private maybeResume(): void {
    if (!this.alive || this.paused) return;
    this.onResume?.();
    const d = this.deferred;
    if (d !== undefined) {
      this.deferred = undefined;
      this.step(d.value);
    }
  }

  /** Set by the owner of the process to record the end of a pause. */
  onResume: (() => void) | undefined;

  private wake(token: number, value: unknown): void {
    if (!this.alive || token !== this.waitToken) return;
    this.waitToken++;
    if (this.paused) {
      this.deferred = { value };
      return;
    }
    this.step(value);
  }

  private step(value: unknown): void {
    const script = this.script;
    if (script === undefined) return;
    const r = script.next(value);
    if (r.done === true) {
      this.script = undefined;
      return;
    }
    this.perform(r.value);
  }

  private perform(effect: Effect): void {
    const token = this.waitToken;
    if (effect.k === 'sleep') {
      this.world.kernel.after(this.machine.clock.trueDuration(effect.localUs), () => this.wake(token, undefined));
    } else {
      this.world.call(this, effect.to, effect.request, effect.timeoutLocalUs, effect.msg, (r) => this.wake(token, r));
    }
  }
}
