import type { InputIssue } from '../errors.js';
import type { Distribution } from '../kernel/dist.js';

/*
 * A client's steps, as the simulation sees them after defaults are filled
 * in (the schema is sim/scenario/steps-schema.ts). Step names are Symfony
 * Lock's method names; see docs/scenarios.md for what each one does.
 */

export type AcquireOnFailure = 'return' | 'next-iteration' | 'ignore';

export interface AcquireStep {
  step: 'acquire' | 'acquireRead';
  blocking: boolean;
  native: boolean;
  retries: number;
  retryDelayMs: number;
  waitTimeoutMs: number | null;
  method: 'atomic' | 'exists-then-set';
  onFailure: AcquireOnFailure;
}

export type Condition = { isExpired: boolean } | { isAcquired: boolean } | { remainingLifetimeBelowMs: number };

export type Step =
  | AcquireStep
  | { step: 'refresh'; ttlMs: number | null }
  | { step: 'isAcquired' }
  | { step: 'getRemainingLifetime' }
  | { step: 'isExpired' }
  /** `time` (the lifecycle's workTime, not written in steps) draws the duration afresh each time instead. */
  | { step: 'work'; durationMs: number; refreshEveryMs: number | null; time?: Distribution }
  | { step: 'sleep'; durationMs: number }
  | { step: 'write' }
  | { step: 'release'; method: 'token-checked' | 'plain-del' }
  | { step: 'throw'; message: string }
  | { step: 'if'; condition: Condition; then: Step[]; else: Step[] }
  | { step: 'repeat'; times: number; steps: Step[]; finally: Step[]; catch: boolean; newLock: boolean }
  | { step: 'fork'; steps: Step[] }
  /** The lifecycle's pauseAfterAcquire, which only the lifecycle fields write: with `probability`, the process stalls for a drawn time. */
  | { step: 'stall'; probability: number; duration: Distribution };

export type StepName = Step['step'];

export const DEFAULT_THROW_MESSAGE = 'an exception inside the critical section';

export type StepInput = Record<string, unknown> & { step: StepName };

/** Fills in every default of a list of steps that passed the schema. */
export function normalizeSteps(input: readonly StepInput[]): Step[] {
  return input.map(normalizeStep);
}

function normalizeStep(s: StepInput): Step {
  const list = (v: unknown): Step[] => normalizeSteps((v as StepInput[] | undefined) ?? []);
  switch (s.step) {
    case 'acquire':
    case 'acquireRead':
      return {
        step: s.step,
        blocking: (s.blocking as boolean | undefined) ?? false,
        native: (s.native as boolean | undefined) ?? false,
        retries: (s.retries as number | undefined) ?? 0,
        retryDelayMs: (s.retryDelayMs as number | undefined) ?? 100,
        waitTimeoutMs: (s.waitTimeoutMs as number | null | undefined) ?? null,
        method: (s.method as AcquireStep['method'] | undefined) ?? 'atomic',
        onFailure: (s.onFailure as AcquireOnFailure | undefined) ?? 'return',
      };
    case 'refresh':
      return { step: 'refresh', ttlMs: (s.ttlMs as number | null | undefined) ?? null };
    case 'isAcquired':
    case 'getRemainingLifetime':
    case 'isExpired':
    case 'write':
      return { step: s.step };
    case 'work':
      return { step: 'work', durationMs: s.durationMs as number, refreshEveryMs: (s.refreshEveryMs as number | null | undefined) ?? null };
    case 'sleep':
      return { step: 'sleep', durationMs: s.durationMs as number };
    case 'release':
      return { step: 'release', method: (s.method as 'token-checked' | 'plain-del' | undefined) ?? 'token-checked' };
    case 'throw':
      return { step: 'throw', message: (s.message as string | undefined) ?? DEFAULT_THROW_MESSAGE };
    case 'if':
      return { step: 'if', condition: { ...(s.condition as Condition) }, then: list(s.then), else: list(s.else) };
    case 'repeat':
      return {
        step: 'repeat',
        times: (s.times as number | undefined) ?? 1,
        steps: list(s.steps),
        finally: list(s.finally),
        catch: (s.catch as boolean | undefined) ?? false,
        newLock: (s.newLock as boolean | undefined) ?? false,
      };
    case 'fork':
      return { step: 'fork', steps: list(s.steps) };
    case 'stall':
      // Not in the schema: only the lifecycle fields make one.
      return { step: 'stall', probability: s.probability as number, duration: s.duration as Distribution };
  }
}

/**
 * The shortest steps that normalize to `steps`: each field left out where
 * its default says the same, as a scenario file would write them (the
 * Sandbox shows a client's steps so).
 */
export function compactSteps(steps: readonly Step[]): StepInput[] {
  return steps.map(compactStep);
}

function compactStep(s: Step): StepInput {
  const out: Record<string, unknown> = { ...s };
  for (const k of ['steps', 'finally', 'then', 'else']) if (Array.isArray(out[k])) out[k] = compactSteps(out[k] as Step[]);
  const whole = JSON.stringify(normalizeStep(out as StepInput));
  for (const k of Object.keys(out)) {
    if (k === 'step') continue;
    const without = { ...out };
    delete without[k];
    if (JSON.stringify(normalizeStep(without as StepInput)) === whole) delete out[k];
  }
  return out as StepInput;
}

/**
 * Checks what the schema cannot say: every `if` has a branch, and
 * `onFailure: next-iteration` is inside a repeat (PHP's `continue` needs a
 * loop). `path` is where `steps` sits.
 */
export function checkSteps(steps: readonly Step[], path: string, issues: InputIssue[], inLoop = false): void {
  steps.forEach((s, i) => {
    const at = `${path}[${i}]`;
    if (s.step === 'if') {
      if (s.then.length === 0 && s.else.length === 0)
        issues.push({ path: `${at}.then`, message: 'an if step needs a branch: give `then` or `else` at least one step' });
      checkSteps(s.then, `${at}.then`, issues, inLoop);
      checkSteps(s.else, `${at}.else`, issues, inLoop);
    } else if (s.step === 'repeat') {
      checkSteps(s.steps, `${at}.steps`, issues, true);
      checkSteps(s.finally, `${at}.finally`, issues, true);
    } else if (s.step === 'fork') {
      checkSteps(s.steps, `${at}.steps`, issues, false);
    } else if ((s.step === 'acquire' || s.step === 'acquireRead') && s.onFailure === 'next-iteration' && !inLoop) {
      issues.push({
        path: `${at}.onFailure`,
        message: '"next-iteration" goes on with the enclosing repeat, and there is none: use "return" or put it in a repeat',
      });
    }
  });
}

/** Calls `visit` on every step of a script, nested ones included, with its JSON path. */
export function forEachStep(steps: readonly Step[], path: string, visit: (s: Step, at: string) => void): void {
  steps.forEach((s, i) => {
    const at = `${path}[${i}]`;
    visit(s, at);
    if (s.step === 'if') {
      forEachStep(s.then, `${at}.then`, visit);
      forEachStep(s.else, `${at}.else`, visit);
    } else if (s.step === 'repeat') {
      forEachStep(s.steps, `${at}.steps`, visit);
      forEachStep(s.finally, `${at}.finally`, visit);
    } else if (s.step === 'fork') {
      forEachStep(s.steps, `${at}.steps`, visit);
    }
  });
}
