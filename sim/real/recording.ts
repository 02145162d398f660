import type { Scenario } from '../scenario/types.js';
import { canonicalHash } from '../trace/hash.js';
import type { ClientLibrary } from './ipc.js';

/**
 * A trace recorded on real servers, as recorded/index.json lists it: what
 * `npm run record-real` writes and the lab reads. No Node modules, so the
 * lab takes it too.
 */
export interface RecordedEntry {
  readonly scenario: string;
  readonly sets: readonly string[];
  /** What the recorded scenario says, as `recordingKey` reads it: the lab offers the recording beside any run of the same scenario. */
  readonly scenarioKey: string;
  readonly client: ClientLibrary;
  readonly file: string;
  /** "recorded on Redis 7.0.15 with Symfony Lock 5.4.x" */
  readonly recordedOn: string;
  readonly outcome: string;
  readonly recordedAt: string;
  /** For a racy story: in how many of the recorder's real runs it ended as the story does (the file is one of those). */
  readonly realRuns?: { readonly ended: number; readonly of: number };
  /** For a lesson's story: the lesson's id and the story's id. */
  readonly lesson?: string;
  readonly story?: string;
  /** The file of its step marks (`marksFileOf`): which line of its code each process was on, event by event. A recording made before marks were kept has none. */
  readonly marks?: string;
}

/** Where a recording's step marks are kept, beside it: `x.json` → `x.marks.json`. */
export function marksFileOf(file: string): string {
  return file.replace(/\.json$/, '.marks.json');
}

/**
 * A scenario's content as a hash, its seed left out: real servers draw
 * nothing from the seed, so a recording stands beside a run of any seed,
 * while a name says too little (a lesson's scenario may share a built-in's
 * name and differ from it, and an override changes what ran).
 */
export function recordingKey(scenario: Scenario): string {
  return canonicalHash({ ...scenario, seed: 0 });
}
