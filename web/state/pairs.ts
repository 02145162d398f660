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

/** The unfenced twin of a trace that has fencing on (null while it runs, or when fencing is off). */
export function useUnfencedPair(t: LoadedTrace | null): LoadedTrace | null {
  const [id, setId] = useState<string | null>(null);
  const pair = useTrace(id);
  // A trace from a file may have been recorded on real servers; a simulated twin beside it would mislead.
  const wanted = t !== null && t.doc.scenario.resource.fencing && t.origin.kind !== 'file';
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
