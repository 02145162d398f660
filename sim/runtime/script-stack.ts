import type { Effect, StepEffect, Steps } from './types.js';

/**
 * Runs `script` to its end and gives back what it returns, exactly as
 * `yield* script` would, but driven by the runtime's ScriptStack: the
 * effects it yields then go straight to the runtime, rather than through
 * every generator it is nested in (a poll in a repeat in a script passed
 * through seven of them) and back down on resume.
 */
export function* sub<T>(script: Steps<T>): Steps<T> {
  return (yield subEffect(script, false)) as T;
}

/**
 * `sub` for the part of a script inside a try: what `fail` throws in it, or
 * in anything it runs, is thrown into the caller here, and the scripts in
 * between are closed as a throw through them would close them (their
 * finally blocks run). Every try around a script that may `fail` starts it
 * this way.
 */
export function* guarded<T>(script: Steps<T>): Steps<T> {
  return (yield subEffect(script, true)) as T;
}

/**
 * What `sub` yields (and `guarded`, with `guarded` true), for a script on a
 * hot path to yield itself: `(yield subEffect(s, false)) as T` is `yield* sub(s)` without
 * the generator in between, whose making and two extra resumes cost more
 * than many a step. What `s` returns is what the yield gives back, and what
 * it throws is thrown at the yield, as with `sub`.
 */
export function subEffect(script: Steps<unknown>, guarded: boolean): StepEffect {
  return { k: 'sub', script, guarded };
}

/**
 * Throws `error` from a script to the nearest try around a `guarded`
 * script, or out of the whole script when there is none. JavaScript's own
 * throw out of a generator costs V8 microseconds at every generator it
 * leaves; this closes the scripts in between instead, as `return()` does
 * (their finally blocks run, and must not yield; their catch blocks are
 * passed by), and throws only into the one that catches.
 */
export function* fail(error: unknown): Steps<never> {
  yield { k: 'throw', error };
  throw new Error('a script resumed after fail(): the runtime must not resume it');
}

/**
 * One thread of script as a runtime drives it. The scripts started by `sub`
 * are kept on a stack and the one on top is resumed. What a script returns
 * is handed to the one below, and what it throws is thrown into it where
 * it called `sub`: as with `yield*`, a try, catch or finally around the
 * call sees it. A plain script, which never yields `sub`, runs as if
 * driven directly.
 */
export class ScriptStack {
  private readonly stack: Array<Steps<unknown>>;
  /** Whether each script on the stack was started by `guarded`: the try of the one below it is where a `fail` lands. */
  private readonly guards: boolean[];

  constructor(root: Steps<void>) {
    this.stack = [root];
    this.guards = [false];
  }

  /**
   * Resumes the script with `value` (what its last effect gave back) and
   * returns its next effect, or undefined once the root script has
   * returned. What the root script throws is thrown.
   */
  resume(value: unknown): Effect | undefined {
    const stack = this.stack;
    const guards = this.guards;
    let thrown: unknown = undefined;
    let failed = false;
    for (;;) {
      const top = stack[stack.length - 1];
      if (top === undefined) return undefined;
      let r: IteratorResult<StepEffect, unknown>;
      try {
        r = failed ? top.throw(thrown) : top.next(value);
      } catch (e) {
        stack.pop();
        guards.pop();
        if (stack.length === 0) throw e;
        thrown = e;
        failed = true;
        continue;
      }
      failed = false;
      thrown = undefined;
      if (r.done === true) {
        stack.pop();
        guards.pop();
        value = r.value;
      } else if (r.value.k === 'sub') {
        stack.push(r.value.script);
        guards.push(r.value.guarded);
        value = undefined;
      } else if (r.value.k === 'throw') {
        // Close every script up to the nearest guarded one, and throw into the try that started it.
        thrown = r.value.error;
        for (;;) {
          const closing = stack.pop()!;
          const wasGuarded = guards.pop()!;
          if (closing.return(undefined).done !== true)
            throw new Error('a finally block yielded while fail() closed its script: a finally on the way of fail() must not yield');
          if (wasGuarded || stack.length === 0) break;
        }
        if (stack.length === 0) throw thrown;
        failed = true;
      } else return r.value;
    }
  }
}
