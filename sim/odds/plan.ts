import { InputError } from '../errors.js';
import { grouped } from '../scenario/limits.js';
import { applyOverrides, type Override } from '../scenario/set.js';
import type { Scenario } from '../scenario/types.js';
import { canonicalHash } from '../trace/hash.js';
import { counted } from '../words.js';
import { showValue, type SeedRange, type Vary } from './range.js';

/*
 * A sweep's plan: every combination of the varied values, each a complete
 * normalized scenario with its hash, and the seed range cut into batches.
 * A batch is named by (code version, scenario hash, seed range), so a batch
 * run twice — a retry on another machine — is recognised and counted once.
 */

/** One point of the grid: the varied values, as overrides, and the scenario they give. */
export interface Combination {
  readonly index: number;
  /** The varied values of this point, path → value, in --vary order. */
  readonly params: ReadonlyArray<{ readonly path: string; readonly value: unknown }>;
  readonly scenario: Scenario;
  /** sha256 of the normalized scenario's canonical JSON. */
  readonly scenarioHash: string;
  /** The `--set` arguments that reproduce this point: the sweep's own sets, then the varied values. */
  readonly sets: readonly string[];
}

/** A batch of seeds of one combination: the unit of work a worker takes. */
export interface Batch {
  readonly combo: number;
  readonly from: number;
  readonly to: number;
  /** code version, scenario hash and seed range: what a result is keyed by. */
  readonly key: string;
}

export interface SweepPlan {
  readonly scenarioRef: string;
  readonly codeVersion: string;
  readonly seeds: SeedRange;
  readonly sets: readonly string[];
  readonly varies: readonly Vary[];
  readonly combinations: readonly Combination[];
  readonly batches: readonly Batch[];
}

/** The most grid points one sweep may have. */
export const MAX_COMBINATIONS = 10_000;

/** The most batches one sweep may plan: each is held from the start, so a plan past this would fill the memory before the first seed ran. */
export const MAX_BATCHES = 1_000_000;

export function scenarioHash(s: Scenario): string {
  return canonicalHash(s);
}

export interface PlanInput {
  readonly scenarioRef: string;
  /** The scenario with the sweep's `--set` overrides already applied. */
  readonly base: Scenario;
  /** The `--set` arguments as written, for the reproducing commands. */
  readonly sets: readonly string[];
  readonly varies: readonly Vary[];
  readonly seeds: SeedRange;
  readonly codeVersion: string;
  /** Seeds per batch. */
  readonly batchSize: number;
}

/** Applies one point's values, reporting a bad path or value as the --vary that gave it. */
function pointScenario(base: Scenario, overrides: readonly Override[]): Scenario {
  try {
    return applyOverrides(base, overrides);
  } catch (err) {
    if (err instanceof InputError && err.source === '--set') throw new InputError('--vary', err.issues);
    throw err;
  }
}

export function planSweep(input: PlanInput): SweepPlan {
  const seen = new Set<string>();
  for (const v of input.varies) {
    if (seen.has(v.path)) throw new InputError('--vary', [{ path: v.path, message: 'is varied twice: give each path once' }]);
    seen.add(v.path);
  }
  const total = input.varies.reduce((n, v) => n * v.values.length, 1);
  if (total > MAX_COMBINATIONS)
    throw new InputError('--vary', [
      { path: '', message: `the grid has ${total} combinations, more than ${MAX_COMBINATIONS}: use larger steps or fewer values` },
    ]);
  if (!Number.isInteger(input.batchSize) || input.batchSize < 1)
    throw new InputError('--batch', [{ path: '', message: `expected a whole number of seeds above zero, got ${input.batchSize}` }]);
  const seedCount = input.seeds.to - input.seeds.from + 1;
  const batchCount = total * Math.ceil(seedCount / input.batchSize);
  if (batchCount > MAX_BATCHES) {
    const of = (x: number, noun: string): string => counted(x, noun, { show: grouped });
    throw new InputError('--seeds', [
      {
        path: '',
        message: `${of(seedCount, 'seed')} × ${of(total, 'combination')} in batches of ${of(input.batchSize, 'seed')} make ${grouped(batchCount)} batches, more than the ${grouped(MAX_BATCHES)} a sweep takes: give fewer seeds or values, or a larger --batch`,
      },
    ]);
  }

  const combinations: Combination[] = [];
  for (let index = 0; index < total; index++) {
    // The first --vary is the outermost loop: index in mixed radix, last digit fastest.
    let rest = index;
    const picked: Array<{ path: string; value: unknown }> = [];
    for (let i = input.varies.length - 1; i >= 0; i--) {
      const v = input.varies[i]!;
      picked.unshift({ path: v.path, value: v.values[rest % v.values.length] });
      rest = Math.floor(rest / v.values.length);
    }
    const scenario = pointScenario(input.base, picked);
    combinations.push({
      index,
      params: picked,
      scenario,
      scenarioHash: scenarioHash(scenario),
      sets: [...input.sets, ...picked.map((p) => `${p.path}=${showValue(p.value)}`)],
    });
  }

  const batches: Batch[] = [];
  for (const c of combinations) {
    for (let from = input.seeds.from; from <= input.seeds.to; from += input.batchSize) {
      const to = Math.min(input.seeds.to, from + input.batchSize - 1);
      batches.push({ combo: c.index, from, to, key: `${input.codeVersion}|${c.scenarioHash}|${from}..${to}` });
    }
  }
  return { scenarioRef: input.scenarioRef, codeVersion: input.codeVersion, seeds: input.seeds, sets: input.sets, varies: input.varies, combinations, batches };
}

/** A batch size that keeps every worker busy and each batch short: about 16 batches per worker, between 50 and 5,000 seeds. */
export function defaultBatchSize(seedCount: number, combinations: number, workers: number): number {
  const perBatch = Math.ceil((seedCount * combinations) / (workers * 16) / combinations);
  return Math.max(1, Math.min(5000, Math.max(Math.min(50, seedCount), perBatch)));
}
