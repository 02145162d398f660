import { InputError, show } from '../errors.js';
import { findingsOf } from '../check/checker.js';
import type { Finding, Verdict } from '../check/verdict.js';
import { reproduceCommand, shellQuote } from '../reproduce.js';
import { runScenario } from '../run.js';
import { normalizeScenario } from '../scenario/normalize.js';
import { MAX_SEED } from '../scenario/seed.js';
import { applyOverrides, type Override } from '../scenario/set.js';
import { traceHash } from '../trace/io.js';
import type { TraceDocument } from '../trace/types.js';

export interface RunOptions {
  /** The seed for every random draw; default: the scenario's own `seed`. */
  seed?: number;
  /** Field overrides, as `locklab run --set path=value` takes them: `{ 'resource.fencing': true }`. */
  set?: Readonly<Record<string, unknown>>;
}

/** Where a scenario came from, so a failure can say how to run it again. */
export interface RunSource {
  /** The scenario document as written, before defaults. */
  readonly document: unknown;
  /** How `locklab run` names it (a built-in name or a file path); undefined for a scenario built in code. */
  readonly ref: string | undefined;
  /** Names the scenario in error messages. */
  readonly label: string;
}

/** A finished seeded run: its trace and verdict, and how to reproduce it from a shell. */
export class Run {
  constructor(
    readonly trace: TraceDocument,
    /** Shell lines that reproduce this run with the `locklab` command. */
    readonly reproduce: string,
  ) {}

  get verdict(): Verdict {
    return this.trace.verdict;
  }

  get seed(): number {
    return this.trace.seed;
  }

  /** Every finding of the verdict in time order, each with the `seq` of the events it is about. */
  get findings(): Finding[] {
    return findingsOf(this.trace.verdict);
  }

  /** The run hash: a fingerprint of the run alone (the same scenario and seed always give the same hash). */
  get hash(): string {
    return traceHash(this.trace);
  }
}

/** A file name made from a scenario's name, safe in a shell. */
function fileNameFor(name: unknown): string {
  const base = (typeof name === 'string' ? name : 'scenario').replace(/[^\w.-]+/g, '-').replace(/^[-.]+|-+$/g, '');
  return `${base === '' ? 'scenario' : base}.json`;
}

/** The command that reproduces a run; a scenario built in code is first written to a file, with a here-document. */
export function reproduction(source: RunSource, seed: number, overrides: readonly Override[]): string {
  if (source.ref !== undefined) return `npx ${reproduceCommand(source.ref, seed, overrides)}`;
  const file = fileNameFor((source.document as { name?: unknown } | null)?.name);
  return [
    `The scenario was built in code; write it to a file (JSON.stringify(builder) gives the same document) and run it:`,
    `cat > ${shellQuote(file)} <<'EOF'`,
    JSON.stringify(source.document),
    'EOF',
    `npx ${reproduceCommand(file, seed, overrides)}`,
  ].join('\n');
}

/** Validates a scenario document as `locklab run` does, applies overrides, and runs it with the seed. */
export function runDocument(source: RunSource, options: RunOptions = {}): Run {
  // A caller in plain JavaScript may hand over the scenario itself: say what the source is, rather than that a document is undefined.
  if (typeof source !== 'object' || source === null || !('document' in source) || typeof source.label !== 'string')
    throw new InputError('runDocument', [
      {
        path: 'source',
        message: 'expected { document, ref, label }: the scenario document, the name `locklab run` knows it by (or undefined), and a label for messages',
      },
    ]);
  // The seed goes into the reproduction's `--seed`, which takes only these: refuse here what the command would refuse there.
  const given = options.seed;
  if (given !== undefined && !(Number.isInteger(given) && given >= 0 && given <= MAX_SEED))
    throw new InputError(source.label, [{ path: 'seed', message: `expected a whole number from 0 to ${MAX_SEED}, got ${show(given)}` }]);
  const overrides: Override[] = Object.entries(options.set ?? {}).map(([path, value]) => ({ path, value }));
  const scenario = applyOverrides(normalizeScenario(source.document, source.label), overrides);
  const seed = options.seed ?? scenario.seed;
  return new Run(runScenario(scenario, seed), reproduction(source, seed, overrides));
}
