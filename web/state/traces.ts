import { useSyncExternalStore } from 'react';
import type { StepMarks } from '../../sim/clients/step-marks.js';
import type { TraceDocument } from '../../sim/trace/types.js';
import { annotate, type Annotations } from '../model/annotate.js';
import { buildModel } from '../model/build.js';
import type { TraceModel } from '../model/types.js';

/** How a trace came about, so it can be re-run, forked or put in a link. */
export type Origin =
  | { kind: 'builtin'; name: string; seed: number | null; overrides: readonly string[] }
  | { kind: 'scenario'; raw: unknown; seed: number | null; overrides: readonly string[] }
  | { kind: 'file'; fileName: string };

/** A trace the lab holds: immutable once registered, with the model derived from it. */
export interface LoadedTrace {
  readonly id: string;
  readonly label: string;
  readonly origin: Origin;
  readonly doc: TraceDocument;
  readonly text: string;
  readonly hash: string;
  readonly model: TraceModel;
  /** Findings tied to their events, refused attempts and the rest the lab draws on top of the model. */
  readonly annotations: Annotations;
  readonly workMs: number;
  /** Which step each client process ran, event by event: for a run, or a simulated trace file that runs again to the same bytes; never for a real server's recording. */
  readonly marks?: StepMarks;
}

/*
 * Traces live here, outside the zustand UI store: the UI store only names
 * them by id. A trace is frozen on arrival and never copied, so a 100k-event
 * trace costs its memory once however many views look at it.
 */
const traces = new Map<string, LoadedTrace>();
const listeners = new Set<() => void>();
let version = 0;
let counter = 0;

/** Registers a trace; its model and annotations are derived here unless the worker already did. */
export function registerTrace(t: Omit<LoadedTrace, 'id' | 'model' | 'annotations'> & Partial<Pick<LoadedTrace, 'model' | 'annotations'>>): LoadedTrace {
  const id = `t${++counter}`;
  Object.freeze(t.doc);
  const model = t.model ?? buildModel(t.doc);
  const loaded: LoadedTrace = Object.freeze({ ...t, id, model, annotations: t.annotations ?? annotate(t.doc, model) });
  traces.set(id, loaded);
  // Keep memory bounded: the lab never shows more than a handful of traces at once.
  if (traces.size > 8) traces.delete(traces.keys().next().value!);
  version++;
  for (const l of listeners) l();
  return loaded;
}

export function getTrace(id: string | null): LoadedTrace | null {
  return id === null ? null : (traces.get(id) ?? null);
}

function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** A trace by id, re-rendering when traces are registered. */
export function useTrace(id: string | null): LoadedTrace | null {
  useSyncExternalStore(subscribe, () => version);
  return getTrace(id);
}
