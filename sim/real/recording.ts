import type { ClientLibrary } from './ipc.js';

/**
 * A trace recorded on real servers, as recorded/index.json lists it: what
 * `npm run record-real` writes and the lab reads. Types only, so the lab
 * takes it without any of the recorder's Node modules.
 */
export interface RecordedEntry {
  readonly scenario: string;
  readonly sets: readonly string[];
  readonly client: ClientLibrary;
  readonly file: string;
  /** "recorded on Redis 7.0.15 with Symfony Lock 5.4.x" */
  readonly recordedOn: string;
  readonly outcome: string;
  readonly recordedAt: string;
  /** For a lesson's story: the lesson's id and the story's id. */
  readonly lesson?: string;
  readonly story?: string;
}
