import type { InputIssue } from '../../sim/errors.js';
import type { StepMarks } from '../../sim/clients/step-marks.js';
import type { TraceDocument } from '../../sim/trace/types.js';
import type { Annotations } from '../model/annotate.js';
import type { TraceModel } from '../model/types.js';
import type { FileWhat } from './classify.js';

/** What the page asks the simulation worker to do. Every request carries an id so replies can be matched. */
export type WorkerRequest =
  /** Run a scenario: a built-in's name or a raw scenario document, a seed, and `path=value` overrides. */
  | { id: number; type: 'run'; scenario: ScenarioInput; seed: number | null; overrides: readonly string[] }
  /** Check a scenario document and return it with every default filled in, without running it. */
  | { id: number; type: 'normalize'; scenario: ScenarioInput; overrides?: readonly string[] }
  /** Read, parse and validate a trace file (the worker reads the file, so the page never holds its text). */
  | { id: number; type: 'load-trace'; file: Blob; fileName: string };

/**
 * A scenario: a built-in's name, a document the page already holds (the
 * sandbox's form, a link's), or a file, which the worker reads and parses so
 * a large file never blocks the page.
 */
export type ScenarioInput = { builtin: string } | { raw: unknown; sourceName: string } | { file: Blob; sourceName: string };

/** A trace the worker produced or checked: the document, its serialized bytes and their sha256. */
export interface TracePayload {
  doc: TraceDocument;
  text: string;
  hash: string;
  /** Milliseconds the worker spent simulating (or parsing), for the status line and the bench. */
  workMs: number;
  /** What the lab draws, derived here too, off the page's main thread: a long trace arrives ready to draw. */
  model: TraceModel;
  annotations: Annotations;
  /** Which step each client process ran, event by event, for the code panel to follow the playhead: for a run, or a simulated trace file that runs again to the same bytes. */
  marks?: StepMarks;
}

export type WorkerReply =
  | { id: number; ok: true; type: 'trace'; trace: TracePayload }
  | { id: number; ok: true; type: 'scenario'; scenario: unknown }
  /** Refused input: where and what, and for a file, what it appears to be. */
  | { id: number; ok: false; source: string; issues: InputIssue[]; what?: FileWhat };
