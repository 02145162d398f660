import type { Effect, StepEffect, Steps } from './types.js';

/**
 * Runs `script` to its end and gives back what it returns, exactly as
 * `yield* script` would, but driven by the runtime's ScriptStack: the
 * effects it yields then go straight to the runtime, rather than through
 * every generator it is nested in (a poll in a repeat in a script passed
 * through seven of them) and back down on resume.
 */
export function* sub<T>(script: Steps<T>): Steps<T> {
  return (yield { k: 'sub', script }) as T;
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

  constructor(root: Steps<void>) {
    this.stack = [root];
  }

  /**
   * Resumes the script with `value` (what its last effect gave back) and
   * returns its next effect, or undefined once the root script has
   * returned. What the root script throws is thrown.
   */
  resume(value: unknown): Effect | undefined {
    const stack = this.stack;
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
        if (stack.length === 0) throw e;
        thrown = e;
        failed = true;
        continue;
      }
      failed = false;
      thrown = undefined;
      if (r.done === true) {
        stack.pop();
        value = r.value;
      } else if (r.value.k === 'sub') {
        stack.push(r.value.script);
        value = undefined;
      } else return r.value;
    }
  }
}
