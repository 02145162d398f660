import type { RecordedEntry } from '../../sim/real/recording.js';
import { sim } from '../worker/client.js';
import { registerTrace, type LoadedTrace } from './traces.js';
import { useUi } from './ui.js';

/** A trace recorded on real servers (`npm run record-real`), as recorded/index.json lists it. */
export type Recording = RecordedEntry;

// The index is small and read at once; each trace is fetched only when opened.
const index = import.meta.glob<Recording[]>('../../recorded/index.json', { eager: true, import: 'default' });
const files = import.meta.glob<string>('../../recorded/*.json', { query: '?raw', import: 'default' });

export const RECORDINGS: readonly Recording[] = Object.values(index)[0] ?? [];

/** A dotted field of a scenario (`store.clock`), as text. */
function field(scenario: unknown, path: string): string {
  let v: unknown = scenario;
  for (const k of path.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return String(v);
}

/**
 * The recordings of this very scenario: the same name, each of the
 * recording's overrides true of it, and fencing the same — the ones Compare
 * can set beside it.
 */
export function recordingsFor(scenario: { name: string; resource: { fencing: boolean } }): Recording[] {
  return RECORDINGS.filter(
    (r) =>
      r.lesson === undefined &&
      r.scenario === scenario.name &&
      r.sets.includes('resource.fencing=true') === scenario.resource.fencing &&
      r.sets.every((set) => field(scenario, set.slice(0, set.indexOf('='))) === set.slice(set.indexOf('=') + 1)),
  );
}

/** The recordings of a lesson's story (its own scenario file, which a built-in of the same name need not equal): Locklab's client first. */
export function recordingsOfStory(lesson: string, story: string): Recording[] {
  return RECORDINGS.filter((r) => r.lesson === lesson && r.story === story).sort((a, b) => a.client.localeCompare(b.client));
}

/** Opens a recording as the second trace of Compare, labelled with where it was recorded. */
export async function openRecording(r: Recording): Promise<LoadedTrace | null> {
  const load = files[`../../recorded/${r.file}`];
  if (load === undefined) return null;
  const ui = useUi.getState();
  ui.set({ busy: `Opening ${r.file}…` });
  try {
    const p = await sim().loadTrace(new Blob([await load()], { type: 'application/json' }), r.file);
    const t = registerTrace({
      label: `${r.scenario} (real servers)`,
      origin: { kind: 'file', fileName: r.file },
      doc: p.doc,
      text: p.text,
      hash: p.hash,
      workMs: p.workMs,
    });
    useUi.getState().set({ secondaryId: t.id, secondaryNote: r.recordedOn });
    return t;
  } finally {
    useUi.getState().set({ busy: null });
  }
}
