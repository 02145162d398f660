import { InputError } from '../../sim/errors.js';
import { parseJson } from '../../sim/json.js';
import { compactSteps, type Step } from '../../sim/scenario/steps.js';
import { GENERIC_FAULTS, type FaultSpec, type Scenario } from '../../sim/scenario/types.js';
import { starterStore, storeKind } from '../../sim/stores/registry.js';
import { loadTraceFile } from '../state/session.js';
import type { LoadedTrace, Origin } from '../state/traces.js';
import { useUi } from '../state/ui.js';
import { classifyText } from '../worker/classify.js';
import { sim, WorkerInputError } from '../worker/client.js';
import type { ScenarioInput } from '../worker/protocol.js';
import { useDraft } from './draft.js';
import { storeNodes } from './place.js';
import { faultName } from './words.js';

/** The number of the latest load asked for: a load that returns after a newer one was asked for is dropped. */
let latestLoad = 0;

/**
 * Loads a scenario (built-in or a user's document, with overrides) into the
 * form, every default filled in by the worker. Only the load asked for last
 * lands: the scenario the Sandbox opens with may come back from the worker
 * after the user has already pressed "Blank scenario" or switched the store,
 * and must not replace what they chose. Resolves false when the scenario was
 * refused or a newer load took its place. `followed`: the form opens it to
 * follow the lab's trace, not because the user chose it (DraftState.followed).
 */
export async function loadDraft(input: ScenarioInput, from: string, overrides: readonly string[] = [], followed = false): Promise<boolean> {
  const ticket = ++latestLoad;
  const d = useDraft.getState();
  try {
    const scenario = (await sim().normalize(input, overrides)) as Scenario;
    if (ticket !== latestLoad) return false;
    d.setDraft(withCompactSteps(scenario), from, followed);
    return true;
  } catch (err) {
    if (ticket !== latestLoad) return false;
    if (err instanceof WorkerInputError) d.setIssues({ source: err.source, issues: err.issues, ...(err.what === undefined ? {} : { what: err.what.words }) });
    else d.setIssues({ source: 'sandbox', issues: [{ path: '', message: String(err) }] });
    return false;
  }
}

/**
 * A scenario whose clients' steps say only what differs from the defaults,
 * as a file would: the form shows steps as JSON, and every default of every
 * step buries what the script does. The rest of the form shows every value.
 */
function withCompactSteps(s: Scenario): Scenario {
  if (s.clients.every((c) => c.steps === null)) return s;
  // The form holds steps as the user writes them; the worker fills in their defaults again at the run.
  return { ...s, clients: s.clients.map((c) => (c.steps === null ? c : { ...c, steps: compactSteps(c.steps) as unknown as Step[] })) };
}

/** Where a trace's scenario can be loaded from, and the key that says so. */
export function sourceOf(t: LoadedTrace): { input: ScenarioInput; overrides: readonly string[]; from: string } {
  const o: Origin = t.origin;
  if (o.kind === 'builtin') return { input: { builtin: o.name }, overrides: o.overrides, from: `builtin:${o.name}|${o.overrides.join(' ')}` };
  if (o.kind === 'scenario') return { input: { raw: o.raw, sourceName: 'link' }, overrides: o.overrides, from: `trace:${t.id}` };
  return { input: { raw: t.doc.scenario, sourceName: o.fileName }, overrides: [], from: `trace:${t.id}` };
}

/** Files up to this size are cheap to read whole on the page, for their description. */
const SMALL_FILE_BYTES = 1 << 20;

/** Whether a file's first bytes are those of a trace rather than a scenario. */
export function looksLikeTrace(head: string): boolean {
  return /"schema"\s*:\s*"locklab\.trace\//.test(head) || /"events"\s*:\s*\[/.test(head);
}

/**
 * Loads a scenario file into the form; a bad file's issues are listed beside
 * the form. Only the file's first 4 KiB are read here, to tell a trace from a
 * scenario: the worker reads and parses the whole file, so a large one never
 * freezes the page. A trace opened here is recognised as one and offered as a
 * trace (or as the scenario it was recorded from).
 */
export async function importScenarioFile(f: File): Promise<void> {
  let head: string;
  try {
    head = await f.slice(0, 4096).text();
  } catch (err) {
    useDraft.getState().setIssues({ source: f.name, issues: [{ path: '', message: `cannot be read: ${String((err as Error).message ?? err)}` }] });
    return;
  }
  if (!looksLikeTrace(head)) {
    await loadDraft({ file: f, sourceName: f.name }, `file:${f.name}`);
    return;
  }
  useDraft.getState().setIssues(null);
  // A small trace is read whole to name it ("a Locklab trace of pause-past-expiry (seed 7, 32 events)"); a large one only by its head.
  const words = f.size <= SMALL_FILE_BYTES ? classifyText(await f.text()).words : 'a Locklab trace';
  useUi.getState().set({
    notice: {
      title: `${f.name} is a trace, not a scenario`,
      source: f.name,
      issues: [],
      what: words,
      tone: 'info',
      actions: [
        {
          label: 'Open it in the Lab as a trace',
          run: () => {
            useUi.getState().set({ view: 'lab' });
            void loadTraceFile(f, 'primary');
          },
        },
        {
          label: 'Edit the scenario it was recorded from',
          run: () => void editRecordedScenario(f),
        },
      ],
    },
  });
}

/** Loads the scenario a trace file was recorded from into the form (the user asked: the file is read whole). */
async function editRecordedScenario(f: File): Promise<void> {
  try {
    const recorded = (parseJson(await f.text(), f.name) as { scenario?: unknown }).scenario;
    await loadDraft({ raw: recorded, sourceName: `${f.name}: scenario` }, `file:${f.name}`);
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    useDraft.getState().setIssues({ source: err.source, issues: err.shown(), what: 'not JSON' });
  }
}

/** What switching the store's kind keeps of the faults, and what it must drop because the new store does not know them. */
export function faultsForKind(s: Scenario, kind: string): { kept: FaultSpec[]; dropped: FaultSpec[] } {
  const own = storeKind(kind)?.faults ?? [];
  const ok = (f: FaultSpec) => (GENERIC_FAULTS as readonly string[]).includes(f.kind) || own.includes(f.kind);
  return { kept: s.faults.filter(ok), dropped: s.faults.filter((f) => !ok(f)) };
}

/** The faults a switch drops, in words: "Eviction (memory full) at 2.5 s". */
export const droppedWords = (dropped: readonly FaultSpec[]): string => dropped.map((f) => `${faultName(f.kind)} at ${f.atMs} ms`).join(', ');

/**
 * Switches the store to another kind, keeping everything else: the new
 * kind starts from its minimal valid settings, the faults it understands
 * stay (those aimed at the old store node now aim at the new one), and the
 * ones it does not are dropped (the caller asks first).
 */
export async function switchStoreKind(s: Scenario, kind: string): Promise<void> {
  const machines = s.machines.map((m) => m.name);
  const { kept } = faultsForKind(s, kind);
  const oldNodes = new Set(storeNodes(s));
  const atStore = (f: FaultSpec) => 'target' in f && oldNodes.has(f.target);
  const from = useDraft.getState().from;
  // First without the faults aimed at the old node, to learn the new store's node names.
  const ok = await loadDraft({ raw: { ...s, store: starterStore(kind, machines), faults: kept.filter((f) => !atStore(f)) }, sourceName: 'sandbox' }, from);
  const next = useDraft.getState().draft;
  if (!ok || next === null || !kept.some(atStore)) return markEdited(s);
  const node = storeNodes(next)[0] ?? '';
  await loadDraft({ raw: { ...next, faults: kept.map((f) => (atStore(f) ? { ...f, target: node } : f)) }, sourceName: 'sandbox' }, from);
  markEdited(s);
}

/** A switch is an edit: the form stays dirty if it was, so a later load still asks before dropping it. */
function markEdited(before: Scenario): void {
  const d = useDraft.getState();
  if (d.draft !== null && d.draft !== before) useDraft.setState({ clean: null });
}
