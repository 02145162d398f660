import type { AcquireStep, Condition, Step } from '../scenario/steps.js';
import type { AcquireResult } from '../stores/protocol.js';
import { drawUs } from '../kernel/dist.js';
import { msToUs } from '../time.js';
import type { CallResult, Effect, Steps } from '../runtime/types.js';
import { fail, subEffect } from '../runtime/script-stack.js';
import type { LockReply, WriteReply, WriteRequest } from '../stores/protocol.js';
import type { Client } from './lifecycle.js';
import { POLL_INTERVAL_US, POLL_JITTER_US } from './lifecycle.js';
import { INVALID_TTL, LOCK_ACQUIRING, LOCK_CONFLICTED, LOCK_EXPIRED, LOCK_RELEASING, ScriptException, type ExceptionKind } from './exceptions.js';

/** How a block of steps ended, besides normally or by an exception: `return;`, or `continue;` in the enclosing loop. */
type Flow = 'normal' | 'return' | 'next';

/** A sleep by the client's clock, yielded directly: `yield* sleep()` would cost a generator per step. */
function pause(localUs: number): Effect {
  return { k: 'sleep', localUs };
}

const RUNTIME_EXCEPTION = 'RuntimeException';

/**
 * A lease that ran out while acquire() was in flight: the store's
 * LockExpiredException, thrown from the refresh() inside acquire(), wrapped
 * by each (observed with Symfony Lock 5.4 on Redis).
 */
const ACQUIRE_EXPIRED = [LOCK_ACQUIRING, LOCK_ACQUIRING, LOCK_EXPIRED];

/**
 * The data of the last refusal any client recorded, frozen: while one holder
 * holds a key, every client it refuses records the same `{ holder }`, and
 * their events share it. A value, never changed, so sharing it across runs
 * and clients changes nothing a run records.
 */
let lastDenied: Readonly<{ holder: string }> = Object.freeze({ holder: '' });

/** `{ holder }` for a refusal's event, the last one's again when the holder is the same; none when the store named no holder. */
function deniedData(holder: string | null | undefined): Readonly<{ holder: string }> | undefined {
  if (holder === undefined || holder === null) return undefined;
  if (lastDenied.holder !== holder) lastDenied = Object.freeze({ holder });
  return lastDenied;
}

/**
 * Runs a client's steps as Symfony Lock 5.4 runs the calls they name: what
 * each method sends to the store, what it returns, what it throws (and with
 * which chain of previous exceptions), and what the Lock object's
 * destructor does at the end. Every step records its result with what the
 * client now believes.
 */
export class StepRunner {
  private readonly ttlUs: number;
  /** The client's step marks' hook, read once: every step checks it. */
  private readonly onStep: Client['onStep'];
  /** The request of the write step in flight and its message (see `writeCall`): a script runs one step at a time. */
  private writing: WriteRequest | undefined = undefined;
  private writingMsg = 0;

  constructor(private readonly c: Client) {
    this.ttlUs = msToUs(c.spec.ttlMs);
    this.onStep = c.onStep;
  }

  /**
   * A whole script, then the end of the PHP process: an exception nobody
   * caught ends it, the Lock object is destroyed (autoRelease), and — for the
   * main process — the store's connection objects go too. `started` is what
   * the process does before its first step.
   */
  *script(
    steps: readonly Step[],
    why: string,
    closeConnections: boolean,
    started: () => void,
    fork: Extract<Step, { step: 'fork' }> | null = null,
  ): Steps<void> {
    started();
    let uncaught: ScriptException | undefined;
    try {
      yield subEffect(this.block(steps), true);
    } catch (e) {
      if (!(e instanceof ScriptException)) throw e;
      uncaught = e;
      this.skipped(e);
    }
    this.c.onStep?.(this.c, fork, 'exit');
    try {
      // Asked first: most scripts end with nothing to destroy, and a generator is made only for one that has.
      if (this.destructs()) yield subEffect(this.destroy(why), true);
    } catch (e) {
      // An exception in a destructor at shutdown is a fatal error: recorded when raised, and the script is over anyway.
      if (!(e instanceof ScriptException)) throw e;
    }
    if (closeConnections && this.c.driver.close !== undefined) yield* this.c.driver.close(this.c);
    // The process is over: whatever it still believed ends with it.
    this.c.believes = false;
    this.c.emit('client.done', uncaught === undefined ? {} : { reason: `uncaught ${uncaught.thrown}: ${uncaught.message}` });
    this.c.onStep?.(this.c, null, 'gone');
  }

  /**
   * Runs steps in order until one ends the block early. Each step runs in
   * this loop rather than in a generator of its own: every effect a step
   * yields passes up through each generator it is nested in, and back down
   * on resume, so one level fewer makes every sleep and call cheaper.
   */
  private *block(steps: readonly Step[]): Steps<Flow> {
    // An index, not for-of: the array iterator would live across every yield, an object made per block run.
    const onStep = this.onStep;
    for (let i = 0; i < steps.length; i++) {
      const s = steps[i]!;
      if (onStep !== undefined) onStep(this.c, s, 'start');
      switch (s.step) {
        case 'acquire':
        case 'acquireRead':
          if ((yield subEffect(this.acquire(s), false)) as boolean) continue;
          if (s.onFailure === 'ignore') continue;
          return s.onFailure === 'return' ? 'return' : 'next';
        case 'refresh':
          yield* this.refresh(s.ttlMs === null ? this.ttlUs : msToUs(s.ttlMs));
          continue;
        case 'isAcquired':
          yield* this.isAcquired(false);
          continue;
        case 'getRemainingLifetime':
          this.remainingLifetime();
          continue;
        case 'isExpired':
          this.isExpired();
          continue;
        case 'work': {
          const workUs = s.time === undefined ? msToUs(s.durationMs) : drawUs(this.c.workload(), s.time);
          const everyUs = s.refreshEveryMs === null ? 0 : msToUs(s.refreshEveryMs);
          // Work without refreshes is one sleep, yielded here rather than from a generator of its own.
          if (everyUs > 0) yield* this.work(workUs, everyUs);
          else if (this.workStarts(workUs)) yield pause(workUs);
          continue;
        }
        case 'stall':
          if (this.c.workload().chance(s.probability)) {
            const us = drawUs(this.c.workload(), s.duration);
            this.c.paused(us);
            this.c.rt.stall(us);
            // Yield once, so that what follows starts only when the pause is over.
            yield pause(0);
          }
          continue;
        case 'sleep': {
          const sleepUs = msToUs(s.durationMs);
          this.c.emit('sleep.start', { data: { sleepUs } });
          yield pause(sleepUs);
          continue;
        }
        case 'write': {
          // The request is yielded here, and its answer read after, without a generator for every write.
          const refused = this.written((yield this.writeCall()) as CallResult<WriteReply>);
          if (refused !== undefined) return yield* fail(refused);
          continue;
        }
        case 'release':
          yield* this.release(s.method);
          continue;
        case 'throw':
          return yield* fail(this.raise('exception.user', 'throw', [RUNTIME_EXCEPTION], s.message));
        case 'if': {
          const flow = yield* this.block((yield* this.condition(s.condition)) ? s.then : s.else);
          if (flow !== 'normal') return flow;
          continue;
        }
        case 'repeat': {
          const flow = yield* this.repeat(s);
          if (flow !== 'normal') return flow;
          continue;
        }
        case 'fork':
          this.fork(s);
          continue;
      }
    }
    return 'normal';
  }

  // ——— Lock::acquire() and acquireRead() ———

  /** Returns whether the lock is now held; false is Symfony's `return false` (a conflict); anything else throws. */
  private *acquire(s: AcquireStep): Steps<boolean> {
    const c = this.c;
    const caps = c.capabilities;
    const read = s.step === 'acquireRead';
    // acquireRead() on a store without shared locks "falls back to a write lock": an ordinary acquire.
    const shared = read && caps.sharing;
    if (s.native && !(read ? caps.blockingShared !== undefined : caps.blocking)) {
      // Calling the store's own wait where it has none: PHP stops the script with an Error (5.4 has no NotSupportedException left to throw).
      return yield* fail(
        this.raise(
          'exception.unsupported',
          s.step,
          ['Error'],
          `Call to undefined method ${c.driver.library.store}::${read ? 'waitAndSaveRead' : 'waitAndSave'}()`,
        ),
      );
    }
    const inStore = s.native || (s.blocking && (shared ? caps.blockingShared === 'interface' : caps.blocking));
    const lock = c.lock;
    const key = lock.key;
    const owner = lock.owner;
    const ttlUs = this.ttlUs;
    const startLocal = c.localNow();
    const waitUs = inStore ? (s.waitTimeoutMs === null ? null : msToUs(s.waitTimeoutMs)) : undefined;
    // Key::resetLifetime(): a new lease is measured from this attempt.
    lock.expiringLocalUs = null;
    // One record for every attempt, its number updated: a driver reads it while its attempt runs, and keeps nothing of it.
    const args = { key, owner, ttlUs, shared, waitUs, attempt: 0 };
    for (let attempt = 1; ; attempt++) {
      args.attempt = attempt;
      const requestLocal = c.localNow();
      let result: AcquireResult;
      if (s.method === 'exists-then-set' && c.driver.get !== undefined && c.driver.set !== undefined) {
        const seen = yield* c.driver.get(c, key, owner, attempt);
        if (seen.result.status !== 'reply') {
          result = { status: seen.result.status, msg: seen.result.msg, reason: seen.result.status };
        } else if (seen.holder === null) {
          c.emit('exists.reply', { owner, msg: seen.result.msg, data: { free: true } });
          result = yield* c.driver.set(c, args);
        } else {
          c.emit('exists.reply', { owner, msg: seen.result.msg, data: { free: false } });
          result = { status: 'denied', msg: seen.result.msg, holder: seen.holder };
        }
      } else if (c.driver.acquireCall !== undefined && c.driver.acquireAnswer !== undefined) {
        // One request and its answer, yielded here: every poll of a waiting client, without a generator.
        result = c.driver.acquireAnswer((yield c.driver.acquireCall(c, args)) as CallResult<LockReply>);
      } else {
        result = yield* c.driver.acquire(c, args);
      }

      if (result.status === 'ok' || result.status === 'invalid-ttl') {
        lock.dirty = true;
        lock.fence = result.fence;
        lock.shared = shared;
        if (result.status === 'invalid-ttl') {
          // Saved with the store's initial TTL; refresh($ttl) then refused the TTL before asking the store anything.
          return yield* fail(this.raise('exception.invalid-ttl', s.step, [LOCK_ACQUIRING, LOCK_ACQUIRING, INVALID_TTL], result.reason));
        }
        const expiresLocalUs = result.expiresLocalUs === undefined ? requestLocal + ttlUs : result.expiresLocalUs;
        lock.expires = expiresLocalUs !== null;
        lock.expiringLocalUs = expiresLocalUs;
        if (expiresLocalUs !== null && c.localNow() >= expiresLocalUs) {
          // checkNotExpired(): the lease ran out while the request was in flight, so the store deletes the key, then throws.
          yield* c.driver.release(c, { key, owner, fence: lock.fence }, 'token-checked');
          return yield* fail(this.raise('exception.expired', s.step, ACQUIRE_EXPIRED, `Failed to store the "${key}" lock.`));
        }
        c.believes = true;
        c.emit('acquire.ok', { owner, fence: result.fence, ttlUs: expiresLocalUs === null ? undefined : ttlUs, msg: result.msg });
        return true;
      }

      const conflict = result.status === 'denied';
      if (result.status === 'denied') {
        c.emit('acquire.denied', { owner, msg: result.msg, reason: result.reason, data: deniedData(result.holder) });
      } else {
        c.emit(result.status === 'timeout' ? 'acquire.timeout' : 'acquire.error', { owner, msg: result.msg, reason: result.reason ?? result.status });
      }

      if (!s.blocking && !s.native) {
        if (attempt > s.retries) {
          if (!conflict)
            return yield* fail(this.raise('exception.acquiring', s.step, [LOCK_ACQUIRING, c.driver.library.exception], result.reason ?? result.status));
          c.emit('acquire.giveup', { owner, data: { attempts: attempt } });
          return false;
        }
        yield pause(msToUs(s.retryDelayMs));
        continue;
      }
      // Blocking: Symfony retries a conflict only; any other failure is thrown as it comes.
      if (!conflict)
        return yield* fail(this.raise('exception.acquiring', s.step, [LOCK_ACQUIRING, c.driver.library.exception], result.reason ?? result.status));
      const waited = c.localNow() - startLocal;
      if (s.waitTimeoutMs !== null && waited >= msToUs(s.waitTimeoutMs)) {
        c.emit('acquire.giveup', { owner, data: { attempts: attempt, waitedUs: waited } });
        return false;
      }
      yield pause(POLL_INTERVAL_US + c.rng().int(-POLL_JITTER_US, POLL_JITTER_US));
    }
  }

  // ——— Lock::refresh() ———

  private *refresh(ttlUs: number): Steps<void> {
    const c = this.c;
    const lock = c.lock;
    lock.expiringLocalUs = null;
    const requestLocal = c.localNow();
    const owner = lock.owner;
    const r = yield* c.driver.refresh(c, { key: lock.key, owner, fence: lock.fence }, ttlUs);
    switch (r.status) {
      case 'ok': {
        lock.dirty = true;
        if (lock.expires) lock.expiringLocalUs = r.expiresLocalUs ?? requestLocal + ttlUs;
        if (lock.expiringLocalUs !== null && c.localNow() >= lock.expiringLocalUs) {
          yield* c.driver.release(c, { key: lock.key, owner, fence: lock.fence }, 'token-checked');
          return yield* fail(this.raise('exception.expired', 'refresh', [LOCK_ACQUIRING, LOCK_EXPIRED], `Failed to store the "${lock.key}" lock.`));
        }
        c.believes = true;
        c.emit('refresh.ok', { owner, fence: lock.fence, ttlUs, msg: r.msg });
        return;
      }
      case 'invalid-ttl':
        return yield* fail(this.raise('exception.invalid-ttl', 'refresh', [LOCK_ACQUIRING, INVALID_TTL], r.reason ?? 'TTL too short'));
      case 'failed':
        lock.dirty = false;
        c.believes = false;
        c.emit('refresh.failed', { owner, msg: r.msg, reason: r.reason ?? 'failed' });
        return yield* fail(this.raise('exception.conflicted', 'refresh', [LOCK_CONFLICTED], r.reason ?? 'someone else holds the lock'));
      default:
        c.believes = false;
        c.emit(r.status === 'timeout' ? 'refresh.timeout' : 'refresh.failed', { owner, msg: r.msg, reason: r.reason ?? r.status });
        return yield* fail(this.raise('exception.acquiring', 'refresh', [LOCK_ACQUIRING, c.driver.library.exception], r.reason ?? r.status));
    }
  }

  // ——— Lock::isAcquired(), getRemainingLifetime(), isExpired() ———

  /** Asks the store; `quiet` (the destructor's own call) leaves the client's belief alone. */
  private *isAcquired(quiet: boolean): Steps<boolean> {
    const c = this.c;
    const lock = c.lock;
    const r = yield* c.driver.exists(c, { key: lock.key, owner: lock.owner, fence: lock.fence, shared: lock.shared });
    if (r.status !== 'yes' && r.status !== 'no') {
      // Lock::isAcquired() does not wrap what the store throws.
      return yield* fail(this.raise('exception.store', 'isAcquired', [c.driver.library.exception], 'reason' in r ? r.reason : r.status));
    }
    const held = r.status === 'yes';
    lock.dirty = held;
    if (!quiet) c.believes = held;
    c.emit(held ? 'isAcquired.yes' : 'isAcquired.no', { owner: lock.owner, fence: held ? lock.fence : undefined, msg: r.msg });
    return held;
  }

  private remainingLifetime(): number | null {
    const c = this.c;
    const lock = c.lock;
    const left = lock.expiringLocalUs === null ? null : lock.expiringLocalUs - c.localNow();
    c.emit('lifetime.read', { owner: lock.owner, data: left === null ? undefined : { remainingUs: left } });
    return left;
  }

  private isExpired(): boolean {
    const c = this.c;
    const lock = c.lock;
    if (lock.expiringLocalUs === null) {
      c.emit('check.ok', { owner: lock.owner, fence: lock.fence });
      return false;
    }
    const leftUs = lock.expiringLocalUs - c.localNow();
    if (leftUs <= 0) {
      c.believes = false;
      c.emit('check.expired', { owner: lock.owner, data: { ttlLeftUs: leftUs } });
      return true;
    }
    c.emit('check.ok', { owner: lock.owner, fence: lock.fence, data: { ttlLeftUs: leftUs } });
    return false;
  }

  private *condition(cond: Condition): Steps<boolean> {
    if ('isExpired' in cond) return this.isExpired() === cond.isExpired;
    if ('isAcquired' in cond) return (yield* this.isAcquired(false)) === cond.isAcquired;
    const left = this.remainingLifetime();
    // PHP compares null < x as false < true: a lock without expiry counts as below any positive limit.
    return left === null ? cond.remainingLifetimeBelowMs > 0 : left < msToUs(cond.remainingLifetimeBelowMs);
  }

  // ——— Lock::release() ———

  private *release(method: 'token-checked' | 'plain-del'): Steps<void> {
    const c = this.c;
    const lock = c.lock;
    c.believes = false;
    const r = yield* c.driver.release(c, { key: lock.key, owner: lock.owner, fence: lock.fence }, method);
    const owner = lock.owner;
    if (r.status === 'ok' || r.status === 'failed') {
      // A key that no longer held our token: Symfony deletes nothing and returns quietly.
      lock.dirty = false;
      if (r.stillLocked === true) {
        c.emit('release.error', { owner, msg: r.msg, reason: r.reason ?? 'the store refused the release', data: { stillLocked: true } });
        return yield* fail(
          this.raise('exception.releasing', 'release', [LOCK_RELEASING], `Failed to release the "${lock.key}" lock, the resource is still locked.`),
        );
      }
      c.emit(r.status === 'ok' ? 'release.ok' : 'release.lost', { owner, msg: r.msg, reason: r.reason });
      return;
    }
    c.emit(r.status === 'timeout' ? 'release.timeout' : 'release.error', { owner, msg: r.msg, reason: r.reason ?? r.status });
    return yield* fail(this.raise('exception.releasing', 'release', [LOCK_RELEASING, c.driver.library.exception], `Failed to release the "${lock.key}" lock.`));
  }

  // ——— the script around the lock ———

  /** Work with a refresh every `everyUs`: one sleep between refreshes. Work without any is one sleep, which `block` yields itself. */
  private *work(workUs: number, everyUs: number): Steps<void> {
    let remainingUs = workUs;
    this.workStarts(workUs);
    while (remainingUs > 0) {
      const chunk = Math.min(everyUs, remainingUs);
      yield pause(chunk);
      remainingUs -= chunk;
      if (remainingUs > 0) yield* this.refresh(this.ttlUs);
    }
  }

  /** Records the start of `workUs` of work; returns whether there is any to wait out. */
  private workStarts(workUs: number): boolean {
    const c = this.c;
    const lock = c.lock;
    c.emit('work.start', { owner: lock.owner, fence: c.believes ? lock.fence : undefined, data: { workUs } });
    return workUs > 0;
  }

  /** A write step's request to the resource, recorded, for `block` to yield; `written` reads its answer. */
  private writeCall(): Effect {
    const c = this.c;
    const lock = c.lock;
    const request: WriteRequest = { owner: lock.owner, fence: lock.fence };
    const msg = c.newMsg();
    this.writing = request;
    this.writingMsg = msg;
    c.emit('write.request', { owner: request.owner, fence: request.fence, peer: c.resource.name, msg });
    return { k: 'call', to: c.resource.name, request, timeoutLocalUs: c.requestTimeoutUs, msg };
  }

  /** Records the answer to the write in flight; returns the exception to throw when the resource refused it or did not answer. */
  private written(r: CallResult<WriteReply>): ScriptException | undefined {
    const c = this.c;
    const { owner, fence } = this.writing!;
    const msg = this.writingMsg;
    this.writing = undefined;
    if (r.status === 'reply' && r.reply.accepted) {
      c.emit('write.done', { owner, fence, msg });
      return undefined;
    }
    if (r.status === 'reply') {
      // The storage refused our token: someone newer holds the lock.
      c.believes = false;
      c.emit('write.refused', { owner, fence, msg, reason: 'fenced' });
      return this.raise('exception.resource', 'write', [RUNTIME_EXCEPTION], 'the resource rejected the write: it has seen a newer fencing token');
    }
    c.emit('write.timeout', { owner, fence, msg, reason: r.status });
    return this.raise('exception.resource', 'write', [RUNTIME_EXCEPTION], `no answer from the resource (${r.status})`);
  }

  private *repeat(s: Extract<Step, { step: 'repeat' }>): Steps<Flow> {
    for (let pass = 0; pass < s.times; pass++) {
      if (s.newLock) {
        this.c.onStep?.(this.c, s, 'new-lock');
        if (this.c.existingLock !== undefined) yield* this.replaceLock();
      }
      let flow: Flow = 'normal';
      let thrown: ScriptException | undefined;
      try {
        flow = (yield subEffect(this.block(s.steps), true)) as Flow;
      } catch (e) {
        if (!(e instanceof ScriptException)) throw e;
        thrown = e;
      }
      if (s.finally.length > 0) {
        try {
          const f = (yield subEffect(this.block(s.finally), true)) as Flow;
          // As in PHP, leaving a finally block by return discards the exception in flight.
          if (f !== 'normal') {
            flow = f;
            thrown = undefined;
          }
        } catch (e) {
          if (!(e instanceof ScriptException)) throw e;
          thrown = e;
        }
      }
      if (thrown !== undefined) {
        if (!s.catch) return yield* fail(thrown);
        this.skipped(thrown);
        continue;
      }
      if (flow === 'return') return 'return';
    }
    return 'normal';
  }

  /** `$lock = $factory->createLock()` over a previous Lock: the old object is destroyed first. */
  private *replaceLock(): Steps<void> {
    if (this.c.existingLock === undefined) return;
    yield* this.destroy('replaced by a new Lock');
    this.c.dropLock();
    this.c.believes = false;
  }

  /** Whether Lock::__destruct() does anything: with autoRelease, for a Lock object still marked acquired. */
  private destructs(): boolean {
    const lock = this.c.existingLock;
    return lock !== undefined && this.c.spec.autoRelease && lock.dirty;
  }

  /** Lock::__destruct(): with autoRelease, a lock still marked acquired is asked after, and released if the store still has it. */
  private *destroy(why: string): Steps<void> {
    const c = this.c;
    const lock = c.existingLock;
    if (lock === undefined || !this.destructs()) return;
    c.emit('autorelease.check', { owner: lock.owner, data: { why } });
    if (yield* this.isAcquired(true)) yield* this.release('token-checked');
  }

  /** pcntl_fork(): the child gets a copy of this process, the Lock object with it, and destroys its copy when it exits. */
  private fork(s: Extract<Step, { step: 'fork' }>): void {
    const c = this.c;
    const fork = c.rt.fork;
    if (fork === undefined) throw this.raise('exception.unsupported', 'fork', ['Error'], 'Call to undefined function pcntl_fork(): this runtime cannot fork');
    const name = `${c.rt.process}/child${++c.children}`;
    const lock = c.existingLock;
    c.emit('process.fork', { owner: lock?.owner, data: { child: name } });
    const inherited = { lock: lock?.copy(), believes: c.believes, locks: c.locks };
    const driver = c.driver.fork?.() ?? c.driver;
    fork.call(c.rt, name, (rt) => c.child(rt, driver, inherited).forked(s));
  }

  /**
   * An exception is leaving the script's care (caught by a loop, or
   * uncaught) while the lock is still marked acquired. A failed release()
   * skipped nothing: it was the release, and the belief ended when it began.
   */
  private skipped(e: ScriptException): void {
    const lock = this.c.existingLock;
    if (lock === undefined || !lock.dirty || e.kind === 'exception.expired' || e.kind === 'exception.releasing') return;
    this.c.believes = false;
    this.c.emit('release.skipped', { owner: lock.owner, reason: e.message });
  }

  /** Records an exception being thrown, and returns it to throw. Losing the lock ends the client's belief. */
  private raise(kind: ExceptionKind, method: string, chain: readonly string[], message: string): ScriptException {
    if (kind === 'exception.expired' || kind === 'exception.conflicted') this.c.believes = false;
    this.c.emit(kind, { owner: this.c.existingLock?.owner, reason: message, data: { method, thrown: chain[0]!, chain: [...chain] } });
    return new ScriptException(kind, method, chain, message);
  }
}
