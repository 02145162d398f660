import { describe, expect, it } from 'vitest';
import { fail, guarded, ScriptStack, sub, subEffect } from '../sim/runtime/script-stack.js';
import type { Effect, Steps } from '../sim/runtime/types.js';

const nap = (localUs: number): Effect => ({ k: 'sleep', localUs });

/** Drives a script to its end, answering each sleep with its length doubled; returns the effects it yielded. */
function drive(root: Steps<void>): number[] {
  const stack = new ScriptStack(root);
  const seen: number[] = [];
  let answer: unknown = undefined;
  for (let effect = stack.resume(answer); effect !== undefined; effect = stack.resume(answer)) {
    if (effect.k !== 'sleep') throw new Error(`unexpected ${effect.k}`);
    seen.push(effect.localUs);
    answer = effect.localUs * 2;
  }
  return seen;
}

describe('a script stack', () => {
  it('runs a script started by sub as yield* would: its effects, their answers, its return value', () => {
    const log: unknown[] = [];
    function* child(n: number): Steps<number> {
      const a = (yield nap(n)) as number;
      const b = (yield nap(n + 1)) as number;
      return a + b;
    }
    function* root(): Steps<void> {
      log.push(yield* sub(child(10)));
      log.push(yield* child(20));
      log.push(yield* sub(sub(child(30))));
    }
    expect(drive(root())).toEqual([10, 11, 20, 21, 30, 31]);
    expect(log).toEqual([42, 82, 122]);
  });

  it('throws what a sub-script throws into its caller, where a catch or finally sees it', () => {
    const log: string[] = [];
    function* failing(): Steps<number> {
      yield nap(1);
      throw new Error('boom');
    }
    function* middle(): Steps<number> {
      try {
        return yield* sub(failing());
      } finally {
        log.push('finally');
        yield nap(2);
      }
    }
    function* root(): Steps<void> {
      try {
        yield* sub(middle());
        log.push('not reached');
      } catch (e) {
        log.push(`caught ${(e as Error).message}`);
      }
      yield nap(3);
    }
    expect(drive(root())).toEqual([1, 2, 3]);
    expect(log).toEqual(['finally', 'caught boom']);
  });

  it('throws out of resume what the root script does not catch, and ends a script that never yields', () => {
    function* root(): Steps<void> {
      yield* sub(
        // eslint-disable-next-line require-yield -- a script that throws before its first effect
        (function* (): Steps<void> {
          throw new Error('uncaught');
        })(),
      );
    }
    expect(() => drive(root())).toThrow('uncaught');
    // A script that ends before its first effect.
    expect(drive((function* (): Steps<void> {})())).toEqual([]);
  });

  it('runs a script whose effect a caller yields itself (subEffect) as sub and guarded run it: its answers, its return value, what fail throws', () => {
    const log: unknown[] = [];
    function* child(n: number): Steps<number> {
      const a = (yield nap(n)) as number;
      return a + 1;
    }
    function* failing(): Steps<number> {
      yield nap(5);
      return yield* fail(new Error('boom'));
    }
    function* root(): Steps<void> {
      log.push((yield subEffect(child(10), false)) as number);
      try {
        log.push((yield subEffect(failing(), true)) as number);
      } catch (e) {
        log.push(`caught ${(e as Error).message}`);
      }
      log.push((yield subEffect(child(20), true)) as number);
    }
    expect(drive(root())).toEqual([10, 5, 20]);
    expect(log).toEqual([21, 'caught boom', 41]);
  });
});

describe('fail and guarded', () => {
  it('throw into the try around the nearest guarded script, closing the scripts between as return does', () => {
    const log: string[] = [];
    function* leaf(): Steps<number> {
      yield nap(1);
      return yield* fail(new Error('boom'));
    }
    function* between(): Steps<number> {
      try {
        // An unguarded sub and a direct yield* are passed by: their catch does not see it, their finally runs.
        return yield* sub(leaf());
      } catch {
        log.push('not caught here');
        return 0;
      } finally {
        log.push('between closed');
      }
    }
    function* root(): Steps<void> {
      try {
        yield* guarded(between());
        log.push('not reached');
      } catch (e) {
        log.push(`caught ${(e as Error).message}`);
      }
      yield nap(2);
    }
    expect(drive(root())).toEqual([1, 2]);
    expect(log).toEqual(['between closed', 'caught boom']);
  });

  it('land in the innermost guarded try, which may fail again to the next one out', () => {
    const log: string[] = [];
    function* inner(): Steps<void> {
      yield nap(1);
      return yield* fail(new Error('first'));
    }
    function* middle(): Steps<void> {
      try {
        yield* guarded(inner());
      } catch (e) {
        log.push(`middle caught ${(e as Error).message}`);
        return yield* fail(new Error('second'));
      }
    }
    function* root(): Steps<void> {
      try {
        yield* guarded(middle());
      } catch (e) {
        log.push(`root caught ${(e as Error).message}`);
      }
    }
    expect(drive(root())).toEqual([1]);
    expect(log).toEqual(['middle caught first', 'root caught second']);
  });

  it('throw out of resume when no guarded script is below, as an uncaught throw does', () => {
    function* root(): Steps<void> {
      yield nap(1);
      yield* sub(
        (function* (): Steps<void> {
          return yield* fail(new Error('uncaught'));
        })(),
      );
    }
    expect(() => drive(root())).toThrow('uncaught');
  });

  it('refuse a finally that yields on the way, rather than lose its effect', () => {
    function* closing(): Steps<void> {
      try {
        yield* sub(
          (function* (): Steps<void> {
            return yield* fail(new Error('boom'));
          })(),
        );
      } finally {
        yield nap(9);
      }
    }
    function* root(): Steps<void> {
      try {
        yield* guarded(closing());
      } catch {
        // not reached: the finally's effect stops the run first
      }
    }
    expect(() => drive(root())).toThrow('a finally block yielded while fail() closed its script');
  });

  it('give a guarded try what a native throw would give it (the step runner’s traces are pinned by test/golden)', () => {
    const log: string[] = [];
    function* thrower(native: boolean): Steps<void> {
      yield nap(1);
      if (native) throw new Error('x');
      return yield* fail(new Error('x'));
    }
    for (const native of [true, false]) {
      function* root(): Steps<void> {
        try {
          yield* guarded(thrower(native));
        } catch (e) {
          log.push(`${native ? 'native' : 'fail'}: ${(e as Error).message}`);
        }
        yield nap(2);
      }
      expect(drive(root())).toEqual([1, 2]);
    }
    expect(log).toEqual(['native: x', 'fail: x']);
  });
});
