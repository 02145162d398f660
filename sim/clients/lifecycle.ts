import type { Rng } from '../kernel/rng.js';
import type { ClientSpec } from '../scenario/types.js';
import type { LockOp, LockReply, StoreNode } from '../stores/types.js';
import { msToUs, US_PER_MS } from '../time.js';
import type { CallResult, Endpoint } from '../world/endpoint.js';
import type { Effect, Script } from '../world/process.js';
import type { WriteReply, WriteRequest } from '../world/resource.js';
import type { Process, World } from '../world/world.js';
import type { Belief } from '../trace/types.js';
import type { EventFields } from '../trace/recorder.js';

/** Symfony's Lock::acquire(true) polls a non-blocking store about every 100 ms, ±10 ms. */
export const POLL_INTERVAL_US = 100 * US_PER_MS;
export const POLL_JITTER_US = 10 * US_PER_MS;

const NO_FIELDS: EventFields = {};

/** A sleep by the client's clock, yielded directly: `yield* sleep()` would cost a generator per step. */
function pause(localUs: number): Effect {
  return { k: 'sleep', localUs };
}
const NOT_HOLDING: Belief = Object.freeze({ holds: false });

/** What a client holds, as far as it knows. */
interface Lease {
  readonly owner: string;
  readonly fence: number | undefined;
  /** By the client's own clock: the time of the request plus the TTL, as Symfony's Key computes it. */
  expiresLocalUs: number;
}

/**
 * One client running the lock lifecycle: acquire (try with retries, or
 * blocking), work (refreshing as configured), check the remaining lifetime,
 * write to the resource with the fencing token, release in a finally — or
 * one of the classic mistakes the spec selects. Every step is recorded with
 * what the client believes at that moment.
 */
export class Client {
  private lease: Lease | undefined;
  private readonly process: Process;
  /** Made on first use: most clients never poll, and a stream costs a seeding. */
  private rngStream: Rng | undefined;
  private readonly requestTimeoutUs: number;

  constructor(
    private readonly world: World,
    private readonly spec: ClientSpec,
    private readonly store: StoreNode,
    private readonly resource: Endpoint<WriteRequest, WriteReply>,
  ) {
    this.requestTimeoutUs = msToUs(spec.requestTimeoutMs);
    this.process = world.spawn(spec.name, world.machine(spec.machine), () => this.run(), msToUs(spec.startMs));
    this.process.onResume = () => this.emit('process.resume');
  }

  private get rng(): Rng {
    this.rngStream ??= this.world.rng.stream(`client:${this.spec.name}`);
    return this.rngStream;
  }

  get name(): string {
    return this.spec.name;
  }

  belief(): Belief {
    const lease = this.lease;
    if (lease === undefined) return NOT_HOLDING;
    const ttlLeftUs = lease.expiresLocalUs - this.process.localNow();
    // Key order matters: traces are compared byte for byte.
    return lease.fence === undefined ? { holds: true, owner: lease.owner, ttlLeftUs } : { holds: true, owner: lease.owner, fence: lease.fence, ttlLeftUs };
  }

  pause(durationUs: number): void {
    if (!this.process.alive) return;
    this.emit('process.pause', { data: { durationUs } });
    this.process.pause(durationUs);
  }

  crash(): void {
    if (!this.process.alive) return;
    this.process.crash();
    this.lease = undefined;
    this.emit('process.crash');
  }

  private emit(kind: string, fields: EventFields = NO_FIELDS): void {
    this.world.record(kind, this.spec.name, this.process.machine, fields, this.spec.key, this.belief());
  }

  private *run(): Script<void> {
    const spec = this.spec;
    this.emit('client.start');
    for (let iteration = 1; iteration <= spec.iterations; iteration++) {
      if (iteration > 1 && spec.thinkMs > 0) yield pause(msToUs(spec.thinkMs));
      const owner = `${spec.name}:${iteration}`;
      const acquired = yield* this.acquire(owner);
      if (!acquired) continue;
      const failure = yield* this.useLock();
      if (failure !== undefined && !spec.release.inFinally) {
        // Without a finally the error skips the release; the key waits out its TTL.
        this.lease = undefined;
        this.emit('release.skipped', { owner, reason: failure });
        continue;
      }
      yield* this.release(owner);
    }
    this.emit('client.done');
  }

  private *request(op: LockOp, kind: string, fields: EventFields): Script<CallResult<LockReply>> {
    const msg = this.world.newMsg();
    fields.peer = this.store.name;
    fields.msg = msg;
    this.emit(kind, fields);
    // Yielded directly rather than through call(): one generator frame fewer on the hottest path.
    return (yield { k: 'call', to: this.store as Endpoint, request: op, timeoutLocalUs: this.requestTimeoutUs, msg }) as CallResult<LockReply>;
  }

  /** Tries to take the lock; returns whether this client now believes it holds it. */
  private *acquire(owner: string): Script<boolean> {
    const spec = this.spec;
    const key = spec.key;
    const ttlUs = msToUs(spec.ttlMs);
    const startLocal = this.process.localNow();
    for (let attempt = 1; ; attempt++) {
      const data = { attempt };
      let result: CallResult<LockReply>;
      let requestLocal: number;
      if (spec.acquire.method === 'exists-then-set') {
        const seen = yield* this.request({ op: 'get', key }, 'exists.request', { owner, data });
        if (seen.status === 'reply' && seen.reply.holder === null) {
          this.emit('exists.reply', { owner, msg: seen.msg, data: { free: true } });
          requestLocal = this.process.localNow();
          result = yield* this.request({ op: 'set', key, owner, ttlUs }, 'acquire.request', { owner, ttlUs, data: { attempt, method: 'set' } });
        } else if (seen.status === 'reply') {
          this.emit('exists.reply', { owner, msg: seen.msg, data: { free: false } });
          result = { status: 'reply', reply: { ok: false, holder: seen.reply.holder ?? null }, msg: seen.msg };
        } else {
          result = seen;
        }
      } else {
        requestLocal = this.process.localNow();
        result = yield* this.request({ op: 'acquire', key, owner, ttlUs }, 'acquire.request', { owner, ttlUs, data });
      }

      if (result.status === 'reply' && result.reply.ok) {
        const fence = result.reply.fence;
        this.lease = { owner, fence, expiresLocalUs: requestLocal! + ttlUs };
        this.emit('acquire.ok', { owner, fence, ttlUs, msg: result.msg });
        return true;
      }
      if (result.status === 'reply') {
        const holder = result.reply.holder;
        this.emit('acquire.denied', { owner, msg: result.msg, data: holder === undefined || holder === null ? undefined : { holder } });
      } else {
        this.emit(result.status === 'timeout' ? 'acquire.timeout' : 'acquire.error', { owner, msg: result.msg, reason: result.status });
      }

      if (spec.acquire.mode === 'try') {
        if (attempt > spec.acquire.retries) {
          this.emit('acquire.giveup', { owner, data: { attempts: attempt } });
          return false;
        }
        yield pause(msToUs(spec.acquire.retryDelayMs));
      } else {
        const waited = this.process.localNow() - startLocal;
        if (spec.acquire.waitTimeoutMs !== null && waited >= msToUs(spec.acquire.waitTimeoutMs)) {
          this.emit('acquire.giveup', { owner, data: { attempts: attempt, waitedUs: waited } });
          return false;
        }
        yield pause(POLL_INTERVAL_US + this.rng.int(-POLL_JITTER_US, POLL_JITTER_US));
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
        const leftUs = lease.expiresLocalUs - this.process.localNow();
        if (leftUs <= 0) {
          this.lease = undefined;
          this.emit('check.expired', { owner: lease.owner, data: { ttlLeftUs: leftUs } });
          return 'lease expired by the client clock';
        }
        this.emit('check.ok', { owner: lease.owner, fence: lease.fence, data: { ttlLeftUs: leftUs } });
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
    let remainingUs = msToUs(spec.workMs);
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
    const requestLocal = this.process.localNow();
    const r = yield* this.request({ op: 'refresh', key: this.spec.key, owner: lease.owner, ttlUs }, 'refresh.request', {
      owner: lease.owner,
      fence: lease.fence,
      ttlUs,
    });
    if (r.status === 'reply' && r.reply.ok) {
      lease.expiresLocalUs = requestLocal + ttlUs;
      this.emit('refresh.ok', { owner: lease.owner, fence: lease.fence, ttlUs, msg: r.msg });
      return undefined;
    }
    this.lease = undefined;
    const reason = r.status === 'reply' ? 'not the owner any more' : r.status;
    this.emit('refresh.failed', { owner: lease.owner, msg: r.msg, reason });
    return `refresh failed: ${reason}`;
  }

  private *write(): Script<string | undefined> {
    const lease = this.lease!;
    const msg = this.world.newMsg();
    this.emit('write.request', { owner: lease.owner, fence: lease.fence, peer: this.resource.name, msg });
    const r = (yield {
      k: 'call',
      to: this.resource as Endpoint,
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
    const method = this.spec.release.method;
    this.lease = undefined;
    const op: LockOp = method === 'plain-del' ? { op: 'del', key: this.spec.key, owner } : { op: 'release', key: this.spec.key, owner };
    const r = yield* this.request(op, 'release.request', { owner, data: { method } });
    if (r.status === 'reply') this.emit(r.reply.ok ? 'release.ok' : 'release.failed', { owner, msg: r.msg, reason: r.reply.ok ? undefined : 'not the owner' });
    else this.emit(r.status === 'timeout' ? 'release.timeout' : 'release.error', { owner, msg: r.msg, reason: r.status });
  }
}
