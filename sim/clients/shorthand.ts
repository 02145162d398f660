import type { ClientSpec } from '../scenario/types.js';
import type { AcquireStep, Step } from '../scenario/steps.js';
import type { Capabilities } from '../stores/protocol.js';

/** The exception a shorthand client throws when its check before a write finds the lease gone. */
export const EXPIRED_BY_CLOCK = 'lease expired by the client clock';

/**
 * The steps a client's lifecycle fields stand for, so that a shorthand
 * client and a client with steps are one and the same thing:
 *
 *     for ($i = 0; $i < iterations; $i++) {      // repeat, catch, newLock
 *         if ($i > 0) usleep(thinkMs);
 *         $lock = $factory->createLock(key, ttl);
 *         try {
 *             if (!$lock->acquire(blocking)) continue;
 *             try {
 *                 work(workMs) (refreshing every refreshEveryMs);
 *                 if (checkRemaining && $lock->isExpired()) throw …;
 *                 write();                        // `writes` times
 *             } finally { $lock->release(); }     // or after the work, without finally
 *         } catch (\Throwable $e) { /* log, next job *\/ }
 *     }
 */
export function shorthandSteps(spec: ClientSpec, caps: Capabilities): Step[] {
  const a = spec.acquire;
  const blocking = a.mode === 'blocking';
  const acquire: AcquireStep = {
    step: a.shared ? 'acquireRead' : 'acquire',
    blocking,
    native: blocking && !a.poll,
    retries: blocking ? 0 : a.retries,
    retryDelayMs: a.retryDelayMs,
    waitTimeoutMs: blocking ? a.waitTimeoutMs : null,
    method: a.method,
    onFailure: 'next-iteration',
  };
  const use: Step[] = [];
  const rounds = Math.max(spec.writes, 1);
  for (let round = 0; round < rounds; round++) {
    use.push(
      spec.workTime === undefined
        ? { step: 'work', durationMs: spec.workMs, refreshEveryMs: spec.refreshEveryMs }
        : { step: 'work', durationMs: spec.workMs, refreshEveryMs: spec.refreshEveryMs, time: spec.workTime },
    );
    // A lock that never expires has nothing to run out: the check is left out, as the lifecycle always did.
    if (spec.checkRemaining && caps.expiring)
      use.push({ step: 'if', condition: { isExpired: true }, then: [{ step: 'throw', message: EXPIRED_BY_CLOCK }], else: [] });
    if (round < spec.writes) use.push({ step: 'write' });
  }
  const release: Step = { step: 'release', method: spec.release.method };
  const p = spec.pauseAfterAcquire;
  const first: Step[] = p === undefined ? [acquire] : [acquire, { step: 'stall', probability: p.probability, duration: p.duration }];
  const body: Step[] = spec.release.inFinally
    ? [...first, { step: 'repeat', times: 1, steps: use, finally: [release], catch: false, newLock: false }]
    : [...first, ...use, release];
  const pass = (times: number, steps: Step[]): Step => ({ step: 'repeat', times, steps, finally: [], catch: true, newLock: true });
  if (spec.iterations === 1 || spec.thinkMs === 0) return [pass(spec.iterations, body)];
  return [pass(1, body), pass(spec.iterations - 1, [{ step: 'sleep', durationMs: spec.thinkMs }, ...body])];
}

/**
 * The shorthand's steps for a client, made once per client spec (and store
 * capabilities): a sweep runs one scenario thousands of times, and nothing
 * writes to a normalized scenario or to the steps made from it.
 */
export function shorthandStepsOf(spec: ClientSpec, caps: Capabilities): readonly Step[] {
  const made = MADE.get(spec);
  if (made !== undefined && made.caps === caps) return made.steps;
  const steps = shorthandSteps(spec, caps);
  MADE.set(spec, { caps, steps });
  return steps;
}

const MADE = new WeakMap<ClientSpec, { readonly caps: Capabilities; readonly steps: readonly Step[] }>();
