/**
 * The lesson format, as the loader returns it. A lesson is a folder
 * `lessons/NN-id/`: `lesson.md` (YAML front matter and Markdown with
 * directives for embeds), `lesson.yaml` (what its scenarios show, its
 * stories, quiz and challenges, as data) and the scenario JSON files the data
 * names. Everything here is plain JSON, so the web build can ship a parsed
 * lesson as a module.
 */

/** A JSON value, as scenario overrides carry them. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** One problem found in a lesson: the file, the field inside it, and what was expected. */
export interface LessonProblem {
  readonly file: string;
  readonly field: string;
  readonly message: string;
}

export interface LessonMeta {
  /** The lesson's slug, e.g. `pause-past-expiry`; the folder is `NN-<id>`. */
  readonly id: string;
  /** NN from the folder name: the lesson's place in the course. */
  readonly number: number;
  readonly folder: string;
  readonly title: string;
  readonly summary: string;
  readonly prerequisites: readonly string[];
  /** The claim ids of CLAIMS.md this lesson teaches. */
  readonly claims: readonly string[];
}

/**
 * Finds events in a trace by what they are, never by sequence number, so a
 * change to the simulation moves a caption with its event. Every given field
 * must match; `nth` picks among the matches (1 is the first, -1 the last).
 */
export interface EventQuery {
  readonly kind?: string | readonly string[];
  readonly actor?: string;
  readonly machine?: string;
  readonly owner?: string;
  readonly peer?: string;
  readonly fence?: number;
  /** A substring of the event's reason. */
  readonly reason?: string;
  /** What the actor believes at the event: does it hold the lock? */
  readonly holds?: boolean;
  /** Only events after the first match of this query. */
  readonly after?: EventQuery;
  /** Only events before the first match of this query. */
  readonly before?: EventQuery;
  readonly nth?: number;
}

export type Outcome = 'safe' | 'fenced' | 'unsafe';

/** A range of milliseconds; either end may be left open. */
export interface MsRange {
  readonly minMs?: number;
  readonly maxMs?: number;
}

/**
 * One statement about a run, in the checker's words. Each object has exactly
 * one key, which names the statement.
 */
export type Expect =
  /** One outcome, or any of several ("safe or fenced": no damage). */
  | { readonly outcome: Outcome | readonly Outcome[] }
  | { readonly doubleOwnership: 'none' | { readonly clients: readonly [string, string]; readonly from?: MsRange; readonly lasting?: MsRange } }
  | { readonly staleWrite: 'none' | { readonly client: string; readonly fence?: number; readonly accepted: boolean } }
  | { readonly rejectedWrite: { readonly client: string; readonly fence?: number; readonly highest?: number; readonly reason?: string } }
  | { readonly lostLock: 'none' | { readonly client: string; readonly how?: string } }
  | { readonly event: EventQuery }
  | { readonly noEvent: EventQuery }
  /** The true time from the first event of `from` to the first event of `to`. */
  | { readonly gap: { readonly from: EventQuery; readonly to: EventQuery } & MsRange }
  | { readonly writes: { readonly client?: string; readonly accepted?: number; readonly rejected?: number } }
  /** A write after the writer's own lock had ended, with nobody granted it since: unprotected, not damage. */
  | { readonly unprotectedWrite: 'none' | { readonly client: string } }
  /** The verdict's lock-out time of a client: waiting while nobody could be using the lock. */
  | { readonly lockOut: { readonly client: string } & MsRange }
  | { readonly stopped: 'completed' | 'event-budget' | 'time-budget' };

export type ExpectName =
  | 'outcome'
  | 'doubleOwnership'
  | 'staleWrite'
  | 'rejectedWrite'
  | 'lostLock'
  | 'event'
  | 'noEvent'
  | 'gap'
  | 'writes'
  | 'unprotectedWrite'
  | 'lockOut'
  | 'stopped';

/** A scenario file of the lesson, with the seed every use of it is pinned to. */
export interface LessonScenario {
  readonly file: string;
  readonly seed: number;
  /** The file's JSON, as written (before defaults). */
  readonly raw: unknown;
}

/** Which run: a lesson scenario, changed by `set` overrides (paths as in `locklab run --set`) and extra faults. */
export interface RunRef {
  readonly scenario: string;
  readonly set?: Readonly<Record<string, Json>>;
  readonly addFaults?: readonly Json[];
}

/** What a group of runs shows: the claims it backs and the statements that must hold. */
export interface Shows extends RunRef {
  readonly claims: readonly string[];
  /** One sentence saying what the run shows, in the learner's words. */
  readonly says: string;
  readonly expect: readonly Expect[];
  /** For a claim the source overstates: the precise version this run proves. */
  readonly precisely?: string;
}

export interface Option {
  readonly text: string;
  readonly correct: boolean;
  /** Why this option is right or wrong. */
  readonly why: string;
  /** For a prediction: what the replayed run must show for this option to be what happened. */
  readonly expect?: readonly Expect[];
}

export interface Question {
  readonly id: string;
  readonly prompt: string;
  /** Several options may be right; the learner ticks them all. */
  readonly multi: boolean;
  readonly options: readonly Option[];
  /** Set for a prediction: the run the learner predicts, replayed once they answer. */
  readonly predict?: RunRef;
}

export interface Stop {
  readonly id: string;
  readonly at: EventQuery;
  /** The caption; `{fence}`, `{actor}`, `{time}`, `{data.X}` and the like are filled from the event. */
  readonly text: string;
  /** A question asked before the caption is revealed ("what happens next?"). */
  readonly ask?: Omit<Question, 'id' | 'predict'>;
  /** Overrides for this stop and the ones after it (the story goes on in a changed run). */
  readonly set?: Readonly<Record<string, Json>>;
  /**
   * What the run shows so far, up to and including the stop's event, as the
   * checker judges that much of it: what the caption says, held to the trace.
   */
  readonly expect?: readonly Expect[];
}

/** A "try this" toggle: re-run the story with one change and say what that shows. */
export interface Try {
  readonly id: string;
  readonly label: string;
  readonly set: Readonly<Record<string, Json>>;
  readonly says: string;
  readonly expect: readonly Expect[];
}

export interface Story {
  readonly id: string;
  readonly title: string;
  readonly scenario: string;
  /**
   * Why this story has no recording on real servers (the lab shows it in
   * place of the button); absent when `npm run record-real` records it.
   */
  readonly notReal?: string;
  /** Why the story is recorded with Locklab's own lock code but not with the real Symfony Lock. */
  readonly notOnSymfony?: string;
  /**
   * Why, on real servers, the story's ending hangs on timing (a race won or
   * lost by a fraction of a millisecond): `npm run record-real` then plays it
   * several times, keeps one run that ends as the story does, and the lab
   * says how many of them did.
   */
  readonly racy?: string;
  readonly stops: readonly Stop[];
  readonly tries: readonly Try[];
}

export type KnobKind = 'number' | 'boolean' | 'choice' | 'fault';

/** One thing the learner may change in a challenge. */
export interface Knob {
  readonly id: string;
  readonly label: string;
  readonly kind: KnobKind;
  /** The scenario path it sets (number, boolean, choice). */
  readonly path?: string;
  readonly min?: number;
  readonly max?: number;
  readonly step?: number;
  readonly unit?: string;
  readonly choices?: readonly { readonly value: Json; readonly label: string }[];
  /** A fault knob: the faults the learner may add, one at most, with the fields they may edit. */
  readonly faults?: readonly { readonly label: string; readonly fault: Json; readonly edit?: readonly string[] }[];
}

export interface Challenge {
  readonly id: string;
  readonly title: string;
  readonly type: 'break' | 'fix' | 'cheapest';
  readonly goal: string;
  readonly scenario: string;
  readonly knobs: readonly Knob[];
  /** What the checker must find in the learner's run. */
  readonly success: readonly Expect[];
  /**
   * Seeds the attempt must pass on, all of them (default: the scenario's pinned
   * seed). A fix that works only for one interleaving is luck, not a fix.
   */
  readonly seeds?: readonly number[];
  /** Cheapest fix: at most this many knobs changed. */
  readonly maxChanges?: number;
  readonly hints: readonly string[];
  readonly solution: {
    readonly set?: Readonly<Record<string, Json>>;
    readonly addFault?: { readonly choice: number; readonly fields?: Readonly<Record<string, number>> };
  };
  /** Why the reference solution works. */
  readonly explain: string;
}

/**
 * A sweep the lesson points at: "how often?", answered by many runs rather
 * than shown by one. The lab draws it as a card that opens the Odds view with
 * this form filled in (it never runs it in the lesson), and `locklab lesson`
 * prints the `locklab sweep` command that runs it.
 */
export interface Sweep {
  readonly id: string;
  readonly title: string;
  /** A built-in scenario's name (`locklab scenarios`): the Odds view's links name built-ins only. */
  readonly scenario: string;
  /** Each varied field exactly as `locklab sweep --vary` takes it: `path=from..to:step` or `path=v1,v2`. */
  readonly vary: readonly string[];
  /** Runs per point: seeds 1..runs. */
  readonly runs: number;
  /** What the sweep asks, in a sentence or two. */
  readonly caption: string;
}

/** A claim this lesson teaches in prose only, with the reason the simulation cannot show it. */
export interface TextOnly {
  readonly claim: string;
  readonly reason: string;
}

/** A claim (or part of one) that waits for a feature the scenario format lacks. */
export interface Pending {
  readonly claim: string;
  readonly needs: string;
  /** Whether the lesson's text already teaches it in prose. */
  readonly part: 'all' | 'part';
}

export interface Lesson extends LessonMeta {
  /** The Markdown body, after the front matter. */
  readonly body: string;
  readonly scenarios: Readonly<Record<string, LessonScenario>>;
  readonly shows: readonly Shows[];
  readonly stories: readonly Story[];
  readonly quiz: readonly Question[];
  readonly challenges: readonly Challenge[];
  readonly sweeps: readonly Sweep[];
  readonly textOnly: readonly TextOnly[];
  readonly pending: readonly Pending[];
  /** The section headings of the body, as deep-link anchors (the steps of the lesson). */
  readonly steps: readonly { readonly id: string; readonly title: string }[];
}

/** What `locklab lessons --json` and the lessons page list for a lesson. */
export interface LessonCounts {
  readonly questions: number;
  readonly predictions: number;
  readonly stories: number;
  /** Of all its stories together. */
  readonly stops: number;
  readonly challenges: number;
}
