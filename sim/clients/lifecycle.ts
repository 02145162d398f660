import { drawUs } from '../kernel/dist.js';
import type { Rng } from '../kernel/rng.js';
import type { ClientSpec } from '../scenario/types.js';
import type { AcquireResult, Capabilities, ClientIo, LockDriver, LockOp, LockReply } from '../stores/protocol.js';
import { msToUs, US_PER_MS } from '../time.js';
import type { CallResult, Effect, NodeRef, OutgoingCall, Runtime, Script } from '../runtime/types.js';
import type { Belief } from '../trace/types.js';
import type { EventFields } from '../trace/recorder.js';
import type { WriteReply } from '../stores/protocol.js';

/** Symfony's Lock::acquire(true) polls a non-blocking store about every 100 ms, ±10 ms. */
export const POLL_INTERVAL_US = 100 * US_PER_MS;
export const POLL_JITTER_US = 10 * US_PER_MS;

const NO_FIELDS: EventFields = {};
const NOT_HOLDING: Belief = Object.freeze({ holds: false });

/** A sleep by the client's clock, yielded directly: `yield* sleep()` would cost a generator per step. */
function pause(localUs: number): Effect {
  return { k: 'sleep', localUs };
}

/** What a client holds, as far as it knows. */
interface Lease {
  readonly key: string;
  readonly owner: string;
  readonly fence: number | undefined;
  readonly shared: boolean;
  /** By the client's own clock; null for a lock that does not expire. */
  expiresLocalUs: number | null;
}

/**
 * One client running the lock lifecycle: acquire (try with retries, or
 * blocking — in the store when it can block, by polling when it cannot), work
 * (refreshing as configured), check the remaining lifetime, write to the
 * resource with the fencing token, release in a finally — or one of the
 * classic mistakes the spec selects. The store's own protocol is the
 * driver's business. Every step is recorded with what the client believes.
 */
export class Client implements ClientIo {
  private lease: Lease | undefined;
  /** Made on first use: most clients never poll, and a stream costs a seeding. */
  private rngStream: Rng | undefined;
  /** The stream of the client's random workload (work times, pauses), apart from its library's jitter. */
  private workRng: Rng | undefined;
  readonly requestTimeoutUs: number;

  /**
   * The client talks to its runtime only (sim/runtime): the same code runs in
   * the simulated world and against real servers. Start it by running
   * `main()` in a process of that runtime.
   */
  constructor(
    private readonly rt: Runtime,
    private readonly spec: ClientSpec,
    private readonly driver: LockDriver,
    private readonly capabilities: Capabilities,
    private readonly resource: NodeRef,
  ) {
    this.requestTimeoutUs = msToUs(spec.requestTimeoutMs);
  }

  get client(): string {
    return this.spec.name;
  }

  get machine(): string {
    return this.spec.machine;
  }

  get name(): string {
    return this.spec.name;
  }

  rng(): Rng {
    this.rngStream ??= this.rt.rng(`client:${this.spec.name}`);
    return this.rngStream;
  }

  localNow(): number {
    return this.rt.localNow();
  }

  private workload(): Rng {
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
    const lease = this.lease;
    if (lease === undefined) return NOT_HOLDING;
    // One object shape, built in one go (no properties added later, which is slow); an
    // undefined field is left out of the JSON, so the bytes are as if it were never there.
    return {
      holds: true,
      owner: lease.owner,
      fence: lease.fence,
      shared: lease.shared ? true : undefined,
      ttlLeftUs: lease.expiresLocalUs === null ? undefined : lease.expiresLocalUs - this.rt.localNow(),
    } as Belief;
  }

  /** The process is about to stop for `durationUs` (a GC pause, SIGSTOP): recorded with what the client believes. */
  paused(durationUs: number): void {
    this.emit('process.pause', { data: { durationUs } });
  }

  resumed(): void {
    this.emit('process.resume');
  }

  /** The process was killed: whatever it believed dies with it. */
  crashed(): void {
    this.lease = undefined;
    this.emit('process.crash');
  }

  /** A deploy changed this client's store settings. */
  reconfigure(patch: Record<string, unknown>): void {
    this.driver.reconfigure?.(patch);
  }

  emit(kind: string, fields: EventFields = NO_FIELDS): void {
    this.rt.record(kind, fields, this.spec.key, this.belief());
  }

  *request(node: NodeRef, op: LockOp, kind: string, fields: EventFields, timeoutLocalUs?: number): Script<CallResult<LockReply>> {
    const msg = this.rt.newMsg();
    fields.peer = node.name;
    fields.msg = msg;
    this.emit(kind, fields);
    return (yield { k: 'call', to: node.name, request: op, timeoutLocalUs: timeoutLocalUs ?? this.requestTimeoutUs, msg }) as CallResult<LockReply>;
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

  /** The client's main script: run it in a process of the runtime; the process ends when it returns. */
  *main(): Script<void> {
    const spec = this.spec;
    this.emit('client.start');
    const background = this.driver.background?.(this);
    if (background !== undefined) this.rt.thread(background);
    for (let iteration = 1; iteration <= spec.iterations; iteration++) {
      if (iteration > 1 && spec.thinkMs > 0) yield pause(msToUs(spec.thinkMs));
      const owner = `${spec.name}:${iteration}`;
      const acquired = yield* this.acquire(owner);
      if (!acquired) continue;
      const p = spec.pauseAfterAcquire;
      if (p !== undefined && this.workload().chance(p.probability)) {
        const us = drawUs(this.workload(), p.duration);
        this.paused(us);
        this.rt.stall(us);
        // Yield once, so that the work starts only when the pause is over.
        yield pause(0);
      }
      const failure = yield* this.useLock();
      if (failure !== undefined && !spec.release.inFinally) {
        // Without a finally the error skips the release; the lock waits out its TTL (or the process).
        this.lease = undefined;
        this.emit('release.skipped', { owner, reason: failure });
        continue;
      }
      yield* this.release(owner);
    }
    this.emit('client.done');
  }

  /** Tries to take the lock; returns whether this client now believes it holds it. */
  private *acquire(owner: string): Script<boolean> {
    const spec = this.spec;
    const key = spec.key;
    const ttlUs = msToUs(spec.ttlMs);
    const startLocal = this.rt.localNow();
    const nativeWait = spec.acquire.mode === 'blocking' && this.capabilities.blocking;
    const waitUs = nativeWait ? (spec.acquire.waitTimeoutMs === null ? null : msToUs(spec.acquire.waitTimeoutMs)) : undefined;
    for (let attempt = 1; ; attempt++) {
      const args = { key, owner, ttlUs, shared: spec.acquire.shared, waitUs, attempt };
      const requestLocal = this.rt.localNow();
      let result: AcquireResult;
      if (spec.acquire.method === 'exists-then-set' && this.driver.get !== undefined && this.driver.set !== undefined) {
        const seen = yield* this.driver.get(this, key, owner, attempt);
        if (seen.result.status !== 'reply') {
          result = { status: seen.result.status, msg: seen.result.msg, reason: seen.result.status };
        } else if (seen.holder === null) {
          this.emit('exists.reply', { owner, msg: seen.result.msg, data: { free: true } });
          result = yield* this.driver.set(this, args);
        } else {
          this.emit('exists.reply', { owner, msg: seen.result.msg, data: { free: false } });
          result = { status: 'denied', msg: seen.result.msg, holder: seen.holder };
        }
      } else {
        result = yield* this.driver.acquire(this, args);
      }

      if (result.status === 'ok') {
        const expiresLocalUs = result.expiresLocalUs === undefined ? requestLocal + ttlUs : result.expiresLocalUs;
        this.lease = { key, owner, fence: result.fence, shared: spec.acquire.shared, expiresLocalUs };
        this.emit('acquire.ok', { owner, fence: result.fence, ttlUs: expiresLocalUs === null ? undefined : ttlUs, msg: result.msg });
        return true;
      }
      if (result.status === 'denied') {
        const holder = result.holder;
        this.emit('acquire.denied', { owner, msg: result.msg, reason: result.reason, data: holder === undefined || holder === null ? undefined : { holder } });
      } else {
        this.emit(result.status === 'timeout' ? 'acquire.timeout' : 'acquire.error', { owner, msg: result.msg, reason: result.reason ?? result.status });
      }

      if (spec.acquire.mode === 'try') {
        if (attempt > spec.acquire.retries) {
          this.emit('acquire.giveup', { owner, data: { attempts: attempt } });
          return false;
        }
        yield pause(msToUs(spec.acquire.retryDelayMs));
      } else {
        const waited = this.rt.localNow() - startLocal;
        if (spec.acquire.waitTimeoutMs !== null && waited >= msToUs(spec.acquire.waitTimeoutMs)) {
          this.emit('acquire.giveup', { owner, data: { attempts: attempt, waitedUs: waited } });
          return false;
        }
        yield pause(POLL_INTERVAL_US + this.rng().int(-POLL_JITTER_US, POLL_JITTER_US));
      }
    }
  }

  /** Works, refreshes, checks and writes; returns why it stopped early, if it did. */
  private *useLock(): Script<string | undefined> {
    const spec = this.spec;
    const rounds = Math.max(spec.writes, 1);
    for (let round = 0; round < rounds; round++) {
      const failure = yield* this.work();
      if (failure !== undefined) return failure;
      if (spec.checkRemaining) {
        const lease = this.lease!;
        // A lock without expiry has nothing to run out; there is nothing to check by the clock.
        if (lease.expiresLocalUs !== null) {
          const leftUs = lease.expiresLocalUs - this.rt.localNow();
          if (leftUs <= 0) {
            this.lease = undefined;
            this.emit('check.expired', { owner: lease.owner, data: { ttlLeftUs: leftUs } });
            return 'lease expired by the client clock';
          }
          this.emit('check.ok', { owner: lease.owner, fence: lease.fence, data: { ttlLeftUs: leftUs } });
        }
      }
      if (round < spec.writes) {
        const failure = yield* this.write();
        if (failure !== undefined) return failure;
      }
    }
    return undefined;
  }

  private *work(): Script<string | undefined> {
    const spec = this.spec;
    let remainingUs = spec.workTime === undefined ? msToUs(spec.workMs) : drawUs(this.workload(), spec.workTime);
    const everyUs = spec.refreshEveryMs === null ? 0 : msToUs(spec.refreshEveryMs);
    this.emit('work.start', { owner: this.lease!.owner, fence: this.lease!.fence, data: { workUs: remainingUs } });
    while (remainingUs > 0) {
      const chunk = everyUs > 0 ? Math.min(everyUs, remainingUs) : remainingUs;
      yield pause(chunk);
      remainingUs -= chunk;
      if (everyUs > 0 && remainingUs > 0) {
        const failure = yield* this.refresh();
        if (failure !== undefined) return failure;
      }
    }
    return undefined;
  }

  private *refresh(): Script<string | undefined> {
    const lease = this.lease!;
    const ttlUs = msToUs(this.spec.ttlMs);
    const requestLocal = this.rt.localNow();
    const r = yield* this.driver.refresh(this, lease, ttlUs);
    if (r.status === 'ok') {
      if (lease.expiresLocalUs !== null) lease.expiresLocalUs = r.expiresLocalUs ?? requestLocal + ttlUs;
      this.emit('refresh.ok', { owner: lease.owner, fence: lease.fence, ttlUs, msg: r.msg });
      return undefined;
    }
    this.lease = undefined;
    const reason = r.reason ?? r.status;
    this.emit(r.status === 'timeout' ? 'refresh.timeout' : 'refresh.failed', { owner: lease.owner, msg: r.msg, reason });
    return `refresh failed: ${reason}`;
  }

  private *write(): Script<string | undefined> {
    const lease = this.lease!;
    const msg = this.rt.newMsg();
    this.emit('write.request', { owner: lease.owner, fence: lease.fence, peer: this.resource.name, msg });
    const r = (yield {
      k: 'call',
      to: this.resource.name,
      request: { owner: lease.owner, fence: lease.fence },
      timeoutLocalUs: this.requestTimeoutUs,
      msg,
    }) as CallResult<WriteReply>;
    if (r.status === 'reply' && r.reply.accepted) {
      this.emit('write.done', { owner: lease.owner, fence: lease.fence, msg });
      return undefined;
    }
    if (r.status === 'reply') {
      // The storage refused our token: someone newer holds the lock.
      this.lease = undefined;
      this.emit('write.refused', { owner: lease.owner, fence: lease.fence, msg, reason: 'fenced' });
      return 'write rejected by fencing';
    }
    this.emit('write.timeout', { owner: lease.owner, fence: lease.fence, msg, reason: r.status });
    return `write ${r.status}`;
  }

  private *release(owner: string): Script<void> {
    const fence = this.lease?.fence;
    this.lease = undefined;
    const r = yield* this.driver.release(this, { key: this.spec.key, owner, fence }, this.spec.release.method);
    if (r.status === 'ok' || r.status === 'failed') this.emit(r.status === 'ok' ? 'release.ok' : 'release.failed', { owner, msg: r.msg, reason: r.reason });
    else this.emit(r.status === 'timeout' ? 'release.timeout' : 'release.error', { owner, msg: r.msg, reason: r.reason ?? r.status });
  }
}
