import type { Rng } from '../kernel/rng.js';
import type { ClientSpec } from '../scenario/types.js';
import type { Capabilities, ClientIo, LockDriver, LockOp, LockReply } from '../stores/protocol.js';
import { msToUs, US_PER_MS } from '../time.js';
import type { CallResult, Effect, NodeRef, OutgoingCall, Runtime, Script, Steps } from '../runtime/types.js';
import type { Belief } from '../trace/types.js';
import type { EventFields } from '../trace/recorder.js';
import { LockState } from './lock-state.js';
import { StepRunner } from './script.js';
import { shorthandStepsOf } from './shorthand.js';
import type { Step } from '../scenario/steps.js';

/**
 * Where a script is, for its step marks: `start`, a step starts; `new-lock`,
 * a repeat's pass makes a new Lock object (its `$lock = ...` line, where the
 * last one is destroyed); `exit`, a script's steps are over and destructors
 * run (with the fork whose child it is, or null for the main script); `gone`,
 * the process has ended (null).
 */
export type StepPhase = 'start' | 'new-lock' | 'exit' | 'gone';

/** Symfony's Lock::acquire(true) polls a non-blocking store about every 100 ms, ±10 ms. */
export const POLL_INTERVAL_US = 100 * US_PER_MS;
export const POLL_JITTER_US = 10 * US_PER_MS;

const NO_FIELDS: EventFields = {};
const NOT_HOLDING: Belief = Object.freeze({ holds: false });

/**
 * One client process running a script of Symfony Lock calls: the client's
 * `steps`, or the steps its lifecycle fields stand for. It is the script's
 * host: it keeps the Lock object and what the client believes, talks to its
 * runtime (sim/runtime) — the same code runs in the simulated world and
 * against real servers — and records every step with what the client then
 * believes. The store's own protocol is the driver's business; the steps
 * are sim/clients/script.ts.
 */
export class Client implements ClientIo {
  /** The current Lock object, made at its first use (a script may make new ones: `repeat` with `newLock`). */
  private current: LockState | undefined;
  /** Whether the client thinks it holds the lock now. */
  believes = false;
  /** Lock objects made so far: the next owner token is `name:(locks + 1)`. */
  locks = 0;
  /** Children forked so far. */
  children = 0;
  /** Made on first use: most clients never poll, and a stream costs a seeding. */
  private rngStream: Rng | undefined;
  private workRng: Rng | undefined;
  readonly requestTimeoutUs: number;
  /**
   * Told where the script is as it goes: set only when a run is asked for its
   * step marks (sim/clients/step-marks.ts). Assigned in the constructor, not
   * initialized as a field: docs/decisions/0018 has what each way cost.
   */
  declare onStep: ((client: Client, step: Step | null, phase: StepPhase) => void) | undefined;

  /**
   * Start it by running `main()` in a process of `rt`. A forked child is a
   * Client too, on the child's runtime, with a copy of its parent's Lock.
   */
  constructor(
    readonly rt: Runtime,
    readonly spec: ClientSpec,
    readonly driver: LockDriver,
    readonly capabilities: Capabilities,
    readonly resource: NodeRef,
    inherited?: { lock: LockState | undefined; believes: boolean; locks: number },
  ) {
    this.requestTimeoutUs = msToUs(spec.requestTimeoutMs);
    this.onStep = undefined;
    if (inherited !== undefined) {
      this.current = inherited.lock;
      this.believes = inherited.believes;
      this.locks = inherited.locks;
    }
  }

  /** The Lock object; `$factory->createLock()` happens at its first use, with the next owner token. */
  get lock(): LockState {
    if (this.current === undefined) {
      this.locks++;
      this.current = new LockState(this.spec.key, `${this.rt.process}:${this.locks}`, this.capabilities.expiring);
    }
    return this.current;
  }

  /** The Lock object in use, if one was made: what a destructor or a fork finds. */
  get existingLock(): LockState | undefined {
    return this.current;
  }

  /** The variable holding the Lock is overwritten or goes out of scope: the next use makes a new one. */
  dropLock(): void {
    this.current = undefined;
  }

  get client(): string {
    return this.rt.process;
  }

  get machine(): string {
    return this.spec.machine;
  }

  get name(): string {
    return this.rt.process;
  }

  rng(): Rng {
    this.rngStream ??= this.rt.rng(`client:${this.rt.process}`);
    return this.rngStream;
  }

  localNow(): number {
    return this.rt.localNow();
  }

  /** The stream of the client's random workload (drawn work times, pauses), apart from its library's jitter. */
  workload(): Rng {
    this.workRng ??= this.rt.rng(`work:${this.spec.name}`);
    return this.workRng;
  }

  newMsg(): number {
    return this.rt.newMsg();
  }

  thread(script: Script<void>): void {
    this.rt.thread(script);
  }

  belief(): Belief {
    const lock = this.current;
    if (!this.believes || lock === undefined) return NOT_HOLDING;
    // One object shape, built in one go (no properties added later, which is slow); an
    // undefined field is left out of the JSON, so the bytes are as if it were never there.
    return {
      holds: true,
      owner: lock.owner,
      fence: lock.fence,
      shared: lock.shared ? true : undefined,
      ttlLeftUs: lock.expiringLocalUs === null ? undefined : lock.expiringLocalUs - this.rt.localNow(),
    } as Belief;
  }

  /** The process is about to stop for `durationUs` (a GC pause, SIGSTOP): recorded with what the client believes. */
  paused(durationUs: number): void {
    this.emit('process.pause', { data: { durationUs } });
  }

  resumed(): void {
    this.emit('process.resume');
  }

  /** The process was killed: whatever it believed dies with it, and no destructor runs. */
  crashed(): void {
    this.believes = false;
    this.emit('process.crash');
    this.onStep?.(this, null, 'gone');
  }

  /** A deploy changed this client's store settings. */
  reconfigure(patch: Record<string, unknown>): void {
    this.driver.reconfigure?.(patch);
  }

  emit(kind: string, fields: EventFields = NO_FIELDS): void {
    this.rt.record(kind, fields, this.spec.key, this.belief());
  }

  send(node: NodeRef, op: LockOp, kind: string, fields: EventFields, timeoutLocalUs?: number): Effect {
    const msg = this.rt.newMsg();
    fields.peer = node.name;
    fields.msg = msg;
    this.emit(kind, fields);
    return { k: 'call', to: node.name, request: op, timeoutLocalUs: timeoutLocalUs ?? this.requestTimeoutUs, msg };
  }

  *request(node: NodeRef, op: LockOp, kind: string, fields: EventFields, timeoutLocalUs?: number): Script<CallResult<LockReply>> {
    return (yield this.send(node, op, kind, fields, timeoutLocalUs)) as CallResult<LockReply>;
  }

  *requestAll(
    calls: ReadonlyArray<{ node: NodeRef; op: LockOp }>,
    kind: string,
    fields: EventFields,
    timeoutLocalUs?: number,
  ): Script<Array<CallResult<LockReply>>> {
    const out: OutgoingCall[] = calls.map((c) => {
      const msg = this.rt.newMsg();
      // Written out rather than spread: this runs for every node of every quorum round.
      this.emit(kind, { owner: fields.owner, fence: fields.fence, ttlUs: fields.ttlUs, reason: fields.reason, data: fields.data, peer: c.node.name, msg });
      return { to: c.node.name, request: c.op, timeoutLocalUs: timeoutLocalUs ?? this.requestTimeoutUs, msg };
    });
    return (yield { k: 'callAll', calls: out }) as Array<CallResult<LockReply>>;
  }

  /**
   * The client's main script: run it in a process of the runtime; the
   * process ends when it returns. It is the step runner's script itself,
   * not a generator around it, so that every effect of the script passes up
   * through one generator fewer; what the process does first runs when the
   * script starts.
   */
  main(): Steps<void> {
    const steps = this.spec.steps ?? shorthandStepsOf(this.spec, this.capabilities);
    return new StepRunner(this).script(steps, 'script end', true, () => {
      this.emit('client.start');
      const background = this.driver.background?.(this);
      if (background !== undefined) this.rt.thread(background);
    });
  }

  /** A forked child of this client, on the child's runtime, with a copy of the Lock object and the store library. */
  child(rt: Runtime, driver: LockDriver, inherited: { lock: LockState | undefined; believes: boolean; locks: number }): Client {
    const child = new Client(rt, this.spec, driver, this.capabilities, this.resource, inherited);
    if (this.onStep !== undefined) child.onStep = this.onStep;
    return child;
  }

  /** A forked child's script: its steps, then it exits and its copy of the Lock is destroyed (it keeps its parent's connections open). */
  forked(fork: Extract<Step, { step: 'fork' }>): Steps<void> {
    return new StepRunner(this).script(fork.steps, 'child exit', false, () => this.emit('client.start'), fork);
  }
}
