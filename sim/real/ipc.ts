import type { Scenario } from '../scenario/types.js';
import type { WriteReply, WriteRequest } from '../world/resource.js';
import type { RawEvent } from './runtime/real-runtime.js';

/** Which lock library a real client runs: the simulation's own code, or Symfony Lock through the PHP driver. */
export type ClientLibrary = 'node' | 'symfony';

/** What the runner tells a client process. */
export type ToChild =
  | {
      readonly t: 'setup';
      readonly scenario: Scenario;
      readonly client: string;
      readonly library: ClientLibrary;
      readonly urls: Readonly<Record<string, string>>;
      readonly msgBase: number;
      /** Whether to report which step each of its processes is on (`mark`), for the lab's code panel. */
      readonly marks: boolean;
    }
  | { readonly t: 'start'; readonly originNs: string }
  | { readonly t: 'written'; readonly msg: number; readonly reply: WriteReply };

/** What a client process tells the runner. */
export type FromChild =
  | { readonly t: 'ready' }
  | { readonly t: 'failed'; readonly message: string }
  | { readonly t: 'event'; readonly e: RawEvent }
  | { readonly t: 'write'; readonly msg: number; readonly request: WriteRequest }
  /** From `timeUs` on (the run's clock), `process` runs the step at `path` of its script (null: on no line); sent in order with the events. */
  | { readonly t: 'mark'; readonly process: string; readonly path: string | null; readonly timeUs: number }
  | { readonly t: 'done' };

/** Whether partitions cut `from` off from `to`: both are named, in different groups of one partition (as the simulated network decides). */
export function isCut(partitions: ReadonlyArray<ReadonlyArray<readonly string[]>>, from: string, to: string): boolean {
  if (from === to) return false;
  for (const groups of partitions) {
    const a = groups.findIndex((g) => g.includes(from));
    const b = groups.findIndex((g) => g.includes(to));
    if (a !== -1 && b !== -1 && a !== b) return true;
  }
  return false;
}
