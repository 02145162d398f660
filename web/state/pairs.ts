import { useEffect, useState } from 'react';
import { forkBase } from '../views/fork.js';
import { runOrigin, withOverride } from './session.js';
import { getTrace, useTrace, type LoadedTrace } from './traces.js';

/*
 * The same run with fencing flipped, so the lab can show fencing beside the
 * run without it rather than instead of it. Each trace's pair is run once,
 * in the worker, and remembered by trace id.
 */
const pairOf = new Map<string, string>();
const running = new Map<string, Promise<LoadedTrace | null>>();

export function fencingPair(t: LoadedTrace): Promise<LoadedTrace | null> {
  const known = getTrace(pairOf.get(t.id) ?? null);
  if (known !== null) return Promise.resolve(known);
  let p = running.get(t.id);
  if (p === undefined) {
    const base = forkBase(t);
    p = runOrigin({ ...base, overrides: withOverride(base.overrides, 'resource.fencing', String(!t.doc.scenario.resource.fencing)) }).then((b) => {
      running.delete(t.id);
      if (b !== null) pairOf.set(t.id, b.id);
      return b;
    });
    running.set(t.id, p);
  }
  return p;
}

/** Traces up to this many events get their unfenced twin at once; longer ones when asked, as the twin costs a second run. */
export const PAIR_AUTO_EVENTS = 20_000;

/** Whether a trace can have an unfenced twin: fencing on, and a scenario the lab ran itself. */
export function canPair(t: LoadedTrace | null): t is LoadedTrace {
  // A trace from a file may have been recorded on real servers; a simulated twin beside it would mislead.
  return t !== null && t.doc.scenario.resource.fencing && t.origin.kind !== 'file';
}

/** The unfenced twin of a trace that has fencing on (null while it runs, when fencing is off, or when not asked for a long trace). */
export function useUnfencedPair(t: LoadedTrace | null, asked: boolean): LoadedTrace | null {
  const [id, setId] = useState<string | null>(null);
  const pair = useTrace(id);
  const wanted = canPair(t) && (asked || t.doc.events.length <= PAIR_AUTO_EVENTS);
  useEffect(() => {
    setId(null);
    if (t === null || !wanted) return;
    let live = true;
    void fencingPair(t).then((b) => {
      if (live && b !== null) setId(b.id);
    });
    return () => {
      live = false;
    };
  }, [t, wanted]);
  return wanted ? pair : null;
}
