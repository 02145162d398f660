import type { Rng } from '../kernel/rng.js';
import type { ClientSpec } from '../scenario/types.js';
import type { LockOp, LockReply, StoreNode } from '../stores/types.js';
import { msToUs, US_PER_MS } from '../time.js';
import type { CallResult, Endpoint } from '../world/endpoint.js';
import { call, sleep, type Script } from '../world/process.js';
import type { WriteReply, WriteRequest } from '../world/resource.js';
import type { Process, World } from '../world/world.js';
import type { Belief } from '../trace/types.js';
import type { EventFields } from '../trace/recorder.js';

/** Symfony's Lock::acquire(true) polls a non-blocking store about every 100 ms, ±10 ms. */
export const POLL_INTERVAL_US = 100 * US_PER_MS;
export const POLL_JITTER_US = 10 * US_PER_MS;

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
  private readonly rng: Rng;

  constructor(
    private readonly world: World,
    private readonly spec: ClientSpec,
    private readonly store: StoreNode,
    private readonly resource: Endpoint<WriteRequest, WriteReply>,
  ) {
    this.rng = world.rng.stream(`client:${spec.name}`);
    this.process = world.spawn(spec.name, world.machine(spec.machine), () => this.run(), msToUs(spec.startMs));
    this.process.onResume = () => this.emit('process.resume');
  }

  get name(): string {
    return this.spec.name;
  }

  belief(): Belief {
    const lease = this.lease;
    if (lease === undefined) return { holds: false };
    const base = { holds: true, owner: lease.owner, ttlLeftUs: lease.expiresLocalUs - this.process.localNow() };
    return lease.fence === undefined ? base : { ...base, fence: lease.fence };
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

  private emit(kind: string, fields: EventFields = {}): void {
    this.world.record(kind, this.spec.name, this.process.machine, { key: this.spec.key, ...fields, believes: this.belief() });
  }

  private ownerFields(owner: string): { owner: string; fence?: number } {
    const fence = this.lease?.fence;
    return fence === undefined ? { owner } : { owner, fence };
  }

  private *run(): Script<void> {
    const spec = this.spec;
    this.emit('client.start');
    for (let iteration = 1; iteration <= spec.iterations; iteration++) {
      if (iteration > 1 && spec.thinkMs > 0) yield* sleep(msToUs(spec.thinkMs));
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
    this.emit(kind, { ...fields, peer: this.store.name, msg });
    return yield* call(this.store, op, msToUs(this.spec.requestTimeoutMs), msg);
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
        this.emit('acquire.ok', { ...this.ownerFields(owner), ttlUs, msg: result.msg });
        return true;
      }
      if (result.status === 'reply') {
        const holder = result.reply.holder;
        this.emit('acquire.denied', { owner, msg: result.msg, ...(holder === undefined || holder === null ? {} : { data: { holder } }) });
      } else {
        this.emit(result.status === 'timeout' ? 'acquire.timeout' : 'acquire.error', { owner, msg: result.msg, reason: result.status });
      }

      if (spec.acquire.mode === 'try') {
        if (attempt > spec.acquire.retries) {
          this.emit('acquire.giveup', { owner, data: { attempts: attempt } });
          return false;
        }
        yield* sleep(msToUs(spec.acquire.retryDelayMs));
      } else {
        const waited = this.process.localNow() - startLocal;
        if (spec.acquire.waitTimeoutMs !== null && waited >= msToUs(spec.acquire.waitTimeoutMs)) {
          this.emit('acquire.giveup', { owner, data: { attempts: attempt, waitedUs: waited } });
          return false;
        }
        yield* sleep(POLL_INTERVAL_US + this.rng.int(-POLL_JITTER_US, POLL_JITTER_US));
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
        this.emit('check.ok', { ...this.ownerFields(lease.owner), data: { ttlLeftUs: leftUs } });
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
    this.emit('work.start', { ...this.ownerFields(this.lease!.owner), data: { workUs: remainingUs } });
    while (remainingUs > 0) {
      const chunk = everyUs > 0 ? Math.min(everyUs, remainingUs) : remainingUs;
      yield* sleep(chunk);
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
      ...this.ownerFields(lease.owner),
      ttlUs,
    });
    if (r.status === 'reply' && r.reply.ok) {
      lease.expiresLocalUs = requestLocal + ttlUs;
      this.emit('refresh.ok', { ...this.ownerFields(lease.owner), ttlUs, msg: r.msg });
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
    this.emit('write.request', { ...this.ownerFields(lease.owner), peer: this.resource.name, msg });
    const r = yield* call(this.resource, { owner: lease.owner, fence: lease.fence }, msToUs(this.spec.requestTimeoutMs), msg);
    if (r.status === 'reply' && r.reply.accepted) {
      this.emit('write.done', { ...this.ownerFields(lease.owner), msg });
      return undefined;
    }
    if (r.status === 'reply') {
      // The storage refused our token: someone newer holds the lock.
      this.lease = undefined;
      this.emit('write.refused', { owner: lease.owner, ...(lease.fence === undefined ? {} : { fence: lease.fence }), msg, reason: 'fenced' });
      return 'write rejected by fencing';
    }
    this.emit('write.timeout', { ...this.ownerFields(lease.owner), msg, reason: r.status });
    return `write ${r.status}`;
  }

  private *release(owner: string): Script<void> {
    const method = this.spec.release.method;
    this.lease = undefined;
    const op: LockOp = method === 'plain-del' ? { op: 'del', key: this.spec.key, owner } : { op: 'release', key: this.spec.key, owner };
    const r = yield* this.request(op, 'release.request', { owner, data: { method } });
    if (r.status === 'reply')
      this.emit(r.reply.ok ? 'release.ok' : 'release.failed', { owner, msg: r.msg, ...(r.reply.ok ? {} : { reason: 'not the owner' }) });
    else this.emit(r.status === 'timeout' ? 'release.timeout' : 'release.error', { owner, msg: r.msg, reason: r.status });
  }
}
