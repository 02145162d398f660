import type { StepMarks } from '../../sim/clients/step-marks.js';
import { recordingKey, type RecordedEntry } from '../../sim/real/recording.js';
import type { Scenario } from '../../sim/scenario/types.js';
import { sim } from '../worker/client.js';
import { registerTrace, type LoadedTrace } from './traces.js';
import { useUi } from './ui.js';

/** A trace recorded on real servers (`npm run record-real`), as recorded/index.json lists it. */
export type Recording = RecordedEntry;

// The index is small and read at once; each trace is fetched only when opened.
const index = import.meta.glob<Recording[]>('../../recorded/index.json', { eager: true, import: 'default' });
const files = import.meta.glob<string>('../../recorded/*.json', { query: '?raw', import: 'default' });

export const RECORDINGS: readonly Recording[] = Object.values(index)[0] ?? [];

/**
 * The recordings of this very scenario, whatever it is called and wherever
 * it came from (a built-in with overrides, a lesson's scenario, a file):
 * those recorded from the same content, seed aside. One for each client;
 * a lesson's story and a built-in can be the same scenario.
 */
export function recordingsFor(scenario: Scenario): Recording[] {
  const key = recordingKey(scenario);
  const byClient = new Map<string, Recording>();
  // A built-in's recording first, then a lesson's of the same scenario.
  for (const r of [...RECORDINGS].sort((a, b) => Number(a.lesson !== undefined) - Number(b.lesson !== undefined)))
    if (r.scenarioKey === key && !byClient.has(r.client)) byClient.set(r.client, r);
  return [...byClient.values()].sort(byClientName);
}

/**
 * By client name, in code-unit order. The names are plain ASCII (`node`,
 * `symfony`); `localeCompare` would sort them alike, but its first call sets
 * up a collator, about 20 ms of a lesson's first render.
 */
function byClientName(a: Recording, b: Recording): number {
  return a.client < b.client ? -1 : a.client > b.client ? 1 : 0;
}

/** The recordings of a lesson's story (its own scenario file, which a built-in of the same name need not equal): Locklab's client first. */
export function recordingsOfStory(lesson: string, story: string): Recording[] {
  return RECORDINGS.filter((r) => r.lesson === lesson && r.story === story).sort(byClientName);
}

/** The recording each opened trace was loaded from, by the trace's id. */
const opened = new Map<string, Recording>();

/** The recording a trace of the lab was opened from (by openRecording), if it was. */
export function recordingOf(trace: LoadedTrace | null): Recording | undefined {
  return trace === null ? undefined : opened.get(trace.id);
}

/** Opens a recording as the second trace of Compare, labelled with where it was recorded. */
export async function openRecording(r: Recording): Promise<LoadedTrace | null> {
  const load = files[`../../recorded/${r.file}`];
  if (load === undefined) return null;
  const ui = useUi.getState();
  ui.set({ busy: `Opening ${r.file}…` });
  try {
    const p = await sim().loadTrace(new Blob([await load()], { type: 'application/json' }), r.file);
    const marks = await marksOf(r);
    const t = registerTrace({
      label: `${r.scenario} (real servers)`,
      origin: { kind: 'file', fileName: r.file },
      doc: p.doc,
      text: p.text,
      hash: p.hash,
      workMs: p.workMs,
      ...(marks === undefined ? {} : { marks }),
    });
    opened.set(t.id, r);
    useUi.getState().set({ secondaryId: t.id, secondaryNote: r.recordedOn });
    return t;
  } finally {
    useUi.getState().set({ busy: null });
  }
}

/**
 * The recording's step marks (which line of its code each process was on,
 * event by event), kept beside it by the recorder; none for a recording
 * made before they were kept, or one whose file cannot be read.
 */
async function marksOf(r: Recording): Promise<StepMarks | undefined> {
  const load = r.marks === undefined ? undefined : files[`../../recorded/${r.marks}`];
  if (load === undefined) return undefined;
  try {
    const m = JSON.parse(await load()) as StepMarks;
    const n = m.seq.length;
    return Array.isArray(m.processes) && m.process.length === n && m.path.length === n ? m : undefined;
  } catch {
    return undefined;
  }
}
