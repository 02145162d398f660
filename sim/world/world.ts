import { Kernel } from '../kernel/kernel.js';
import type { Scheduled } from '../kernel/queue.js';
import { RngStreams } from '../kernel/rng.js';
import type { Rng } from '../kernel/rng.js';
import type { CallResult, Effect, Runtime, Script, Steps } from '../runtime/types.js';
import { ScriptStack } from '../runtime/script-stack.js';
import { Recorder, type EventFields } from '../trace/recorder.js';
import type { Belief, JsonValue } from '../trace/types.js';
import { DEFER, type Caller, type Endpoint } from './endpoint.js';
import { Machine } from './machine.js';
import { CUT, Network, type NetworkConfig } from './network.js';

const NO_FIELDS: EventFields = {};

/**
 * The simulated world: virtual time, seeded randomness, machines, the network
 * and the trace. Processes run scripts here; store nodes and the resource are
 * endpoints they call.
 */
export class World {
  readonly kernel = new Kernel();
  readonly rng: RngStreams;
  readonly trace: Recorder;
  readonly network: Network;
  private readonly machines = new Map<string, Machine>();
  private readonly processes = new Map<string, Process>();
  private readonly endpoints = new Map<string, Endpoint>();
  private readonly exitListeners: Array<(p: Process) => void> = [];
  private nextMsg = 1;
  /**
   * When the last message from one party to another arrives, by direction:
   * messages between a process and a node travel on one connection and
   * arrive in the order they were sent (TCP), whatever their drawn delays.
   * Keyed by sender and receiver together: looked up only when a process
   * first calls an endpoint (it keeps its connection), so one map serves,
   * rather than one per sender in every run.
   */
  private readonly lastArrival = new Map<string, Arrival>();
  /** Store nodes that hold locks together (Redlock, Combined): their lock events carry the group and its quorum. */
  private readonly nodeGroups = new Map<string, { group: string; quorum: number }>();

  /** `keepEvents` false: events go only to `trace.onEvent` (a streaming checker), and none are kept. */
  constructor(seed: number, network: NetworkConfig, keepEvents = true) {
    this.trace = new Recorder(keepEvents);
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

  /** Makes `endpoint` reachable by its name: scripts address their calls by name. */
  addEndpoint(endpoint: Endpoint): void {
    this.endpoints.set(endpoint.name, endpoint);
  }

  endpoint(name: string): Endpoint {
    const e = this.endpoints.get(name);
    if (e === undefined) throw new Error(`no store node or resource named ${name}`);
    return e;
  }

  process(name: string): Process {
    const p = this.processes.get(name);
    if (p === undefined) throw new Error(`no process named ${name}`);
    return p;
  }

  /**
   * Declares that store node `node` is one of a group of nodes that hold a
   * lock together, held while at least `quorum` of them hold it. The node's
   * `lock.*` events then carry `data.group` and `data.quorum` for the checker.
   */
  setNodeGroup(node: string, group: string, quorum: number): void {
    this.nodeGroups.set(node, { group, quorum });
  }

  /** Records a trace event stamped with the current true time and `machine`'s clock. */
  record(kind: string, actor: string, machine: Machine, fields: EventFields = NO_FIELDS, key?: string, believes?: Belief): void {
    const now = this.kernel.nowUs;
    if (this.nodeGroups.size > 0 && kind.startsWith('lock.')) {
      const g = this.nodeGroups.get(actor);
      if (g !== undefined) fields = withGroup(fields, g.group, g.quorum);
    }
    this.trace.record(now, kind, actor, machine.name, machine.clock.read(now), fields, key ?? fields.key, believes ?? fields.believes);
  }

  /** Records an event that belongs to no machine's clock (network, fault injector). */
  recordGlobal(kind: string, actor: string, machine: string, fields: EventFields = NO_FIELDS): void {
    this.trace.record(this.kernel.nowUs, kind, actor, machine, undefined, fields, fields.key, fields.believes);
  }

  /** Creates a process on `machine`; it runs nothing until `start`. */
  addProcess(name: string, machine: Machine): Process {
    const p = new Process(this, name, machine);
    this.processes.set(name, p);
    return p;
  }

  spawn(name: string, machine: Machine, script: (p: Process) => Steps<void>, atUs: number): Process {
    const p = this.addProcess(name, machine);
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
  call(p: Process, toName: string, request: unknown, timeoutLocalUs: number, msg: number, done: (r: CallResult<unknown>) => void): void {
    const connection = p.connection(toName);
    const to = connection.to;
    const pending = new PendingCall(this, p, to, connection.back, request, msg, done);
    const delayUs = this.network.delayFrom(p.machine, to.machine, p.machine);
    const kernel = this.kernel;
    let arrivesUs = -1;
    if (delayUs >= 0) {
      arrivesUs = this.inOrder(connection.out, delayUs);
      kernel.schedule(pending, arrivesUs);
    } else this.recordGlobal('msg.lost', 'net', p.machine.name, { peer: to.name, msg, reason: delayUs === CUT ? 'partition' : 'loss' });
    // The timeout takes its place in the order after the delivery: a request arriving on its microsecond is handled first.
    // It is queued only once it may fire (see PendingCall.armTimeout): most calls are answered in time.
    pending.timeoutUs = kernel.dueAfter(p.machine.clock.trueDuration(timeoutLocalUs));
    pending.timeoutSeq = kernel.reserveSeq();
    if (arrivesUs < 0 || arrivesUs > pending.timeoutUs) pending.armTimeout();
  }

  /** A fresh message id for a request about to be sent. */
  newMsg(): number {
    return this.nextMsg++;
  }

  /** The last arrival of a message from the party named `from` to the one named `to`, the one record of it that every call between them shares. */
  arrival(from: string, to: string): Arrival {
    // NUL cannot occur in a name, so no two pairs share a key.
    const key = `${from}\u0000${to}`;
    let a = this.lastArrival.get(key);
    if (a === undefined) {
      a = { atUs: 0 };
      this.lastArrival.set(key, a);
    }
    return a;
  }

  /** The true time a message sent now on `direction` with `delayUs` arrives: never before the one sent before it. */
  inOrder(direction: Arrival, delayUs: number): number {
    const at = Math.max(this.kernel.nowUs + delayUs, direction.atUs);
    direction.atUs = at;
    return at;
  }
}

/** When the last message in one direction between two parties arrives (see `World.lastArrival`). */
export interface Arrival {
  atUs: number;
}

/** A process's way to an endpoint: the endpoint, and both directions between them, requests out and replies back. */
interface Connection {
  readonly to: Endpoint;
  readonly out: Arrival;
  readonly back: Arrival;
}

/** A copy of `fields` whose data also names the node's group and quorum (written out: spreads are slow here). */
function withGroup(fields: EventFields, group: string, quorum: number): EventFields {
  const data: Record<string, JsonValue> = {};
  if (fields.data !== undefined) for (const k of Object.keys(fields.data)) data[k] = fields.data[k]!;
  data.group = group;
  data.quorum = quorum;
  return {
    key: fields.key,
    owner: fields.owner,
    fence: fields.fence,
    ttlUs: fields.ttlUs,
    peer: fields.peer,
    msg: fields.msg,
    reason: fields.reason,
    believes: fields.believes,
    data,
  };
}

/**
 * One request in flight: its delivery, the handling at the far end, the
 * reply's way back, and its timeout. It is also the `Caller` the endpoint
 * sees, and its own kernel event twice over, the request's arrival and then
 * the reply's: a call makes no closure and no queue entry for either.
 */
class PendingCall implements Caller, Scheduled {
  /** When the call times out, and its place in the order, reserved when it was made. */
  timeoutUs = 0;
  timeoutSeq = 0;
  /** The timeout, once queued: only when the request or reply is lost, or late, or the endpoint defers. */
  private timeout: CallTimeout | undefined;
  readonly process: string;
  readonly machine: string;
  private settled = false;
  // As a kernel event (see Kernel.schedule): set by the kernel.
  timeUs = 0;
  seq = 0;
  cancelled = false;
  queued = false;
  /** The reply on its way back, once sent; until then the event is the request's arrival. */
  private reply: CallResult<unknown> | undefined;

  constructor(
    private readonly world: World,
    private readonly p: Process,
    private readonly to: Endpoint,
    /** Where replies to this process arrive in order. */
    private readonly back: Arrival,
    private readonly request: unknown,
    readonly msg: number,
    private readonly done: (r: CallResult<unknown>) => void,
  ) {
    this.process = p.name;
    this.machine = p.machine.name;
  }

  /** The kernel event: the request arrives, or, once a reply was sent, the reply does. */
  fire(): void {
    const reply = this.reply;
    if (reply === undefined) this.arrive();
    else this.settle(reply);
  }

  /** The request reaches the endpoint, which handles it (or refuses the connection) and replies, now or later. */
  private arrive(): void {
    const { to, msg } = this;
    if (!to.isUp()) {
      this.send({ status: 'refused', msg });
      return;
    }
    const reply = to.handle(this.request, this);
    if (reply !== DEFER) this.send({ status: 'reply', reply, msg });
    // A deferred reply comes when the endpoint decides, perhaps never.
    else this.armTimeout();
  }

  /**
   * Queues the call's timeout at the time and place reserved for it: called
   * when it may fire, the first time the call is known not to be answered
   * before it. It fires in the order it would have had if queued at once.
   */
  armTimeout(): void {
    if (this.timeout !== undefined || this.settled) return;
    this.timeout = new CallTimeout(this);
    this.world.kernel.scheduleReserved(this.timeout, this.timeoutUs, this.timeoutSeq);
  }

  respond(reply: unknown): void {
    this.send({ status: 'reply', reply, msg: this.msg });
  }

  private send(result: CallResult<unknown>): void {
    const { world, to, msg } = this;
    const delayUs = world.network.delayFrom(to.machine, this.p.machine, this.p.machine);
    if (delayUs < 0) {
      world.recordGlobal('msg.lost', 'net', to.machine.name, { peer: this.process, msg, reason: delayUs === CUT ? 'partition' : 'loss' });
      this.armTimeout();
      return;
    }
    const atUs = world.inOrder(this.back, delayUs);
    // A reply landing on the timeout's microsecond loses the tie: the timeout took its place in the order first.
    if (atUs >= this.timeoutUs) this.armTimeout();
    if (this.reply === undefined) {
      this.reply = result;
      world.kernel.schedule(this, atUs);
    } else this.sendAgain(result, atUs);
  }

  /**
   * A second reply to one request (none of the stores sends one) goes its
   * own way, and is ignored when it lands. Its closure is made here, not in
   * `send`: a closure there would have `send`'s variables put in a context
   * object at every reply.
   */
  private sendAgain(result: CallResult<unknown>, atUs: number): void {
    this.world.kernel.at(atUs, () => this.settle(result));
  }

  settle(r: CallResult<unknown>): void {
    if (this.settled) return;
    this.settled = true;
    if (this.timeout !== undefined) this.world.kernel.cancel(this.timeout);
    this.done(r);
  }
}

/** A call's timeout, its own kernel event (see Kernel.timeout): no closure per call. */
class CallTimeout implements Scheduled {
  timeUs = 0;
  seq = 0;
  cancelled = false;
  queued = false;

  constructor(private readonly call: PendingCall) {}

  fire(): void {
    this.call.settle({ status: 'timeout', msg: this.call.msg });
  }
}

/**
 * A process: one or more threads of script on a machine. A paused process
 * keeps its timers and its sockets: whatever completes while it is stopped is
 * handed to its threads when it resumes, the way a GC pause or SIGSTOP
 * behaves — which also stops a lock library's heartbeat thread. A crashed
 * process is gone, threads and all.
 */
export class Process {
  alive = true;
  /** Whether it ended by a crash rather than by finishing its script. */
  crashed = false;
  private pausedUntilUs = -1;
  private readonly threads: Thread[] = [];
  private main: Thread | undefined;
  /**
   * This process's connections, by endpoint name: the world's records of
   * both directions, looked up once rather than at every message (they are
   * the world's, by name, so a later process of the same name shares them).
   */
  private readonly connections = new Map<string, Connection>();
  private lastConnection: Connection | undefined;

  /** Set by the owner of the process to record the end of a pause. */
  onResume: (() => void) | undefined;

  constructor(
    readonly world: World,
    readonly name: string,
    readonly machine: Machine,
  ) {}

  /** @internal The endpoint named `to`, and both directions between this process and it. */
  connection(to: string): Connection {
    // Most processes talk to one endpoint over and over: the last one is at hand without a look-up.
    const last = this.lastConnection;
    if (last !== undefined && last.to.name === to) return last;
    let c = this.connections.get(to);
    if (c === undefined) {
      const endpoint = this.world.endpoint(to);
      c = { to: endpoint, out: this.world.arrival(this.name, endpoint.name), back: this.world.arrival(endpoint.name, this.name) };
      this.connections.set(to, c);
    }
    this.lastConnection = c;
    return c;
  }

  /** This process's view of the world, for the client code that runs in it. */
  runtime(): Runtime {
    return new SimRuntime(this);
  }

  get paused(): boolean {
    return this.world.nowUs < this.pausedUntilUs;
  }

  /** The process's machine clock now. */
  localNow(): number {
    return this.machine.clock.read(this.world.nowUs);
  }

  start(script: Steps<void>): void {
    if (!this.alive) return;

    this.main = this.thread(script);
  }

  /** Runs another script in this process, now: a lock library's background thread (heartbeats, keep-alives). */
  thread(script: Steps<void>): Thread | undefined {
    if (!this.alive) return undefined;
    const t = new Thread(this, script);
    this.threads.push(t);
    t.wake(t.token, undefined);
    return t;
  }

  pause(durationUs: number): void {
    if (!this.alive) return;
    const until = this.world.nowUs + durationUs;
    if (until <= this.pausedUntilUs) return;
    this.pausedUntilUs = until;
    this.world.kernel.at(until, () => this.maybeResume());
  }

  crash(): void {
    if (this.alive) this.crashed = true;
    this.exit();
  }

  /**
   * The process ends: by a crash, or because its main script finished (a PHP
   * worker's request is over). Either way the kernel frees what it held
   * (flock, semaphores) and its connections close (sessions).
   */
  private exit(): void {
    if (!this.alive) return;
    this.alive = false;
    for (const t of this.threads) t.stop();
    this.threads.length = 0;
    this.world.processExited(this);
  }

  private maybeResume(): void {
    if (!this.alive || this.paused) return;
    this.onResume?.();
    // Threads resume in the order they were started, so the run stays deterministic.
    for (const t of [...this.threads]) t.resume();
  }

  /** @internal A thread finished its script; when the main one does, the process exits. */
  ended(t: Thread): void {
    const i = this.threads.indexOf(t);
    if (i !== -1) this.threads.splice(i, 1);
    if (t === this.main) this.exit();
  }
}

/** One script in a process, waiting on at most one effect at a time. */
class Thread {
  /** Identifies the effect being waited on, so late results are ignored. */
  token = 0;
  private script: ScriptStack | undefined;
  private deferred: { value: unknown } | undefined;
  /**
   * The token of the one sleep or call being waited on, and the callbacks
   * that end it, made once per thread rather than once per effect: a sleep
   * ends only by its timer and a call only by its one settlement, so no
   * earlier callback can still be pending when a new effect begins.
   */
  private waitToken = 0;
  private readonly sleepEnded = (): void => this.wake(this.waitToken, undefined);
  private readonly callSettled = (r: CallResult<unknown>): void => this.wake(this.waitToken, r);

  constructor(
    private readonly process: Process,
    script: Steps<void>,
  ) {
    this.script = new ScriptStack(script);
  }

  stop(): void {
    this.script = undefined;
    this.deferred = undefined;
  }

  resume(): void {
    const d = this.deferred;
    if (d === undefined) return;
    this.deferred = undefined;
    this.step(d.value);
  }

  wake(token: number, value: unknown): void {
    if (!this.process.alive || token !== this.token) return;
    this.token++;
    if (this.process.paused) {
      this.deferred = { value };
      return;
    }
    this.step(value);
  }

  private step(value: unknown): void {
    const script = this.script;
    if (script === undefined) return;
    const effect = script.resume(value);
    if (effect === undefined) {
      this.script = undefined;
      this.process.ended(this);
      return;
    }
    this.perform(effect);
  }

  private perform(effect: Effect): void {
    const token = this.token;
    const p = this.process;
    const world = p.world;
    switch (effect.k) {
      case 'sleep':
        this.waitToken = token;
        world.kernel.after(p.machine.clock.trueDuration(effect.localUs), this.sleepEnded);
        return;
      case 'call':
        this.waitToken = token;
        world.call(p, effect.to, effect.request, effect.timeoutLocalUs, effect.msg, this.callSettled);
        return;
      case 'callAll': {
        // Every request goes out at once; the thread resumes when the last has settled.
        const results: Array<CallResult<unknown>> = new Array<CallResult<unknown>>(effect.calls.length);
        let left = effect.calls.length;
        if (left === 0) {
          world.kernel.after(0, () => this.wake(token, results));
          return;
        }
        effect.calls.forEach((c, i) =>
          world.call(p, c.to, c.request, c.timeoutLocalUs, c.msg, (r) => {
            results[i] = r;
            if (--left === 0) this.wake(token, results);
          }),
        );
        return;
      }
    }
  }
}

/** The simulated world as a client process's runtime: virtual time, the trace, seeded streams. */
class SimRuntime implements Runtime {
  readonly process: string;
  readonly machine: string;

  constructor(private readonly p: Process) {
    this.process = p.name;
    this.machine = p.machine.name;
  }

  localNow(): number {
    return this.p.localNow();
  }

  record(kind: string, fields: EventFields, key: string | undefined, believes: Belief | undefined): void {
    this.p.world.record(kind, this.p.name, this.p.machine, fields, key, believes);
  }

  newMsg(): number {
    return this.p.world.newMsg();
  }

  rng(name: string): Rng {
    return this.p.world.rng.stream(name);
  }

  thread(script: Script<void>): void {
    this.p.thread(script);
  }

  fork(name: string, body: (rt: Runtime) => Steps<void>): void {
    const child = this.p.world.addProcess(name, this.p.machine);
    child.start(body(child.runtime()));
  }

  stall(durationUs: number): void {
    this.p.pause(durationUs);
  }
}
