/**
 * `locklab/testing`: seeded replays in a project's own Vitest suite. Build a
 * scenario in code (or name a built-in or a file), run it with a seed, and
 * assert on the verdict; a failing assertion prints the `locklab run` command
 * that reproduces it. Importing this module registers the matchers with
 * Vitest's `expect`, so Vitest (an optional peer dependency) must be there.
 */
import { expect } from 'vitest';
import '../cli/node-hash.js';
import { readScenarioRef } from '../cli/scenario-ref.js';
import { locklabMatchers, type LocklabMatchers } from './matchers.js';
import { runDocument, type Run, type RunOptions } from './run.js';

expect.extend(locklabMatchers);

declare module 'vitest' {
  // The type parameter must match Vitest's own declaration of Matchers.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any, @typescript-eslint/no-empty-object-type
  interface Matchers<T = any> extends LocklabMatchers<T> {}
}

/**
 * Runs a built-in scenario (by name) or a scenario file (by path) with a
 * seed and overrides, exactly as `locklab run REF --seed N --set …` does.
 */
export function replay(ref: string, options: RunOptions = {}): Run {
  const found = readScenarioRef(ref);
  return runDocument({ document: found.document, ref, label: found.label }, options);
}

export { scenario, ScenarioBuilder, type At, type AtFor, type NodeStoreOptions, type RedisOptions, type RedlockOptions } from './builder.js';
export type { ClientOptions, ScenarioDocument, StoreDocument } from './document.js';
export { locklabMatchers, type LocklabMatchers, type MatcherContext, type MatcherResult } from './matchers.js';
export { Run, runDocument, type RunOptions, type RunSource } from './run.js';
