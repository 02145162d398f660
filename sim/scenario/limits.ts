/**
 * Every input has a size: these are the largest Locklab reads. They are
 * data, not scattered constants, so the schema, the readers, the error
 * messages and docs/limits.md all quote the same numbers, each by its name.
 *
 * They are chosen so that anything within them runs to completion on an
 * ordinary machine. A run that streams its trace (a run job, a sweep) keeps
 * no events, so its memory does not grow with its length and only time
 * bounds `maxEvents`. A run that keeps its whole trace (`locklab run`, the
 * lab) is held to `maxTraceEvents`, so that its trace still serialises (a
 * JavaScript string holds at most about 512 MiB; a trace event takes up to
 * about 600 bytes with the longest names and keys), fits `maxTraceBytes`,
 * and stays under about 2 GB in memory.
 */
export const LIMITS = {
  /** Bytes of a scenario file, or of the scenario a link inflates to. */
  maxScenarioBytes: 1_048_576,
  /** Bytes of a trace file `locklab check` reads: the longest string the engine can hold. */
  maxTraceBytes: 536_870_888,
  /** Bytes of one line of a JSON Lines trace (the first carries the scenario); the file itself is read line by line, at any length. */
  maxTraceLineBytes: 16_777_216,
  /** Bytes of a trace file the lab opens: the tab holds it twice (worker and page) and draws it; 177 MB, a full 1,000,000-event run, was measured to open. */
  maxLabTraceBytes: 201_326_592,
  /** Levels of nested arrays and objects in any JSON document. */
  maxDepth: 64,
  /** Machines in a scenario. */
  maxMachines: 64,
  /** Clients in a scenario. */
  maxClients: 200,
  /** Faults in a scenario. */
  maxFaults: 1000,
  /** Items of any other array in a scenario (a partition's groups, a deploy's clients...). */
  maxArrayItems: 1000,
  /** Nodes of a multi-node store (Redlock) or stores of a Combined store. */
  maxStoreNodes: 99,
  /** The first value a store's fencing counter may start from (2^52): far enough below 2^53 that counting on stays exact. */
  maxCounterStart: 4_503_599_627_370_496,
  /** Kernel events one run may process (`budget.maxEvents`), for a run that streams its trace (sweeps, run jobs). */
  maxEvents: 100_000_000,
  /** Kernel events a run that keeps its whole trace may process (`locklab run`, the lab): its trace can be written and read back. */
  maxTraceEvents: 1_000_000,
  /** Characters of a scenario's name and summary. */
  maxTextChars: 2000,
  /** `--set` overrides on one command line or link. */
  maxOverrides: 100,
  /** Issues an error message lists before it says how many more there are. */
  maxIssuesShown: 20,
  /** Worker processes one sweep or one `locklab worker` starts on a machine (`--workers`, `--threads`): each is a whole Node process. */
  maxWorkers: 256,
} as const;

export type LimitName = keyof typeof LIMITS;

/** The scenario's own lists, held to their own limits. */
export const TOP_LEVEL_ARRAYS: Readonly<Record<string | number, LimitName>> = { machines: 'maxMachines', clients: 'maxClients', faults: 'maxFaults' };

/** What each limit counts, for messages. */
export const LIMIT_UNITS: Readonly<Record<LimitName, string>> = {
  maxScenarioBytes: 'bytes',
  maxTraceBytes: 'bytes',
  maxTraceLineBytes: 'bytes',
  maxLabTraceBytes: 'bytes',
  maxDepth: 'levels',
  maxMachines: 'machines',
  maxClients: 'clients',
  maxFaults: 'faults',
  maxArrayItems: 'items',
  maxStoreNodes: 'nodes',
  maxCounterStart: '',
  maxEvents: 'events',
  maxTraceEvents: 'events',
  maxTextChars: 'characters',
  maxOverrides: 'overrides',
  maxIssuesShown: 'issues',
  maxWorkers: 'processes',
};

/** How a limit is quoted in an error: its value and its name, so the reader can look it up in docs/limits.md. */
export function limitText(name: LimitName): string {
  const unit = LIMIT_UNITS[name];
  return `the limit is ${grouped(LIMITS[name])}${unit === '' ? '' : ` ${unit}`} (${name})`;
}

/** 1048576 as "1,048,576", the same on every engine (no locale data involved). */
export function grouped(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
}

/**
 * A run that keeps its whole trace must stay within maxTraceEvents; the
 * issue to report when its budget allows more, or undefined.
 */
export function keptTraceIssue(budget: { readonly maxEvents: number }): { path: string; message: string } | undefined {
  if (budget.maxEvents <= LIMITS.maxTraceEvents) return undefined;
  return {
    path: 'budget.maxEvents',
    message: `is ${grouped(budget.maxEvents)}, more than a run that keeps its whole trace may take; ${limitText('maxTraceEvents')}`,
  };
}
