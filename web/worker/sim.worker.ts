/// <reference lib="webworker" />
/*
 * The simulation runs here, off the page's main thread, with the very same
 * sim/ modules the CLI uses, so a trace hashed in the browser equals the one
 * hashed under Node. Files are read and parsed here too, so a large one never
 * freezes the page. Nothing here touches the DOM.
 */
import { InputError, show } from '../../sim/errors.js';
import { grouped, keptTraceIssue, LIMITS, limitText } from '../../sim/scenario/limits.js';
import { parseJson, textOfBytes, type JsonKind } from '../../sim/json.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { applyOverrides, parseOverride, type Override } from '../../sim/scenario/set.js';
import { BUILTIN_SCENARIOS } from '../../sim/scenarios/index.js';
import { StepMarker, type StepMarks } from '../../sim/clients/step-marks.js';
import { runJob, runScenario } from '../../sim/run.js';
import { serializeTrace, traceHash } from '../../sim/trace/io.js';
import type { Scenario } from '../../sim/scenario/types.js';
import type { TraceDocument } from '../../sim/trace/types.js';
import { annotate } from '../model/annotate.js';
import { buildModel } from '../model/build.js';
import { classifyText, classifyValue, type FileWhat } from './classify.js';
import type { ScenarioInput, TracePayload, WorkerReply, WorkerRequest } from './protocol.js';

declare const self: DedicatedWorkerGlobalScope;

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The text of the file being read, kept so that a refused file can be told apart (a trace, a scenario). */
let lastText: string | undefined;

/** A file's JSON by the CLI's rules; the size is checked before a byte is read. */
async function readJson(file: Blob, source: string, kind: JsonKind): Promise<unknown> {
  // The lab holds a trace twice (here and in the page) and draws it, so it opens smaller traces than `locklab check` reads.
  const limit = kind === 'trace' ? 'maxLabTraceBytes' : 'maxScenarioBytes';
  if (file.size > LIMITS[limit]) {
    const elsewhere = kind === 'trace' ? '; `locklab check` reads larger ones' : '';
    throw new InputError(source, [{ path: '', message: `is ${grouped(file.size)} bytes; ${limitText(limit)}${elsewhere}` }]);
  }
  const bytes = new Uint8Array(await file.arrayBuffer());
  const text = textOfBytes(bytes, source, kind, (b) => UTF8.decode(b));
  lastText = text;
  return parseJson(text, source, kind);
}

/** Reads a file input into a document; other inputs need no reading. */
async function resolved(input: ScenarioInput): Promise<Exclude<ScenarioInput, { file: Blob }>> {
  if (!('file' in input)) return input;
  return { raw: await readJson(input.file, input.sourceName, 'scenario'), sourceName: input.sourceName };
}

function scenarioOf(input: Exclude<ScenarioInput, { file: Blob }>): Scenario {
  if ('builtin' in input) {
    const raw = BUILTIN_SCENARIOS[input.builtin];
    if (raw === undefined) {
      const known = Object.keys(BUILTIN_SCENARIOS).join(', ');
      throw new InputError('scenario', [{ path: '', message: `no built-in scenario named ${show(input.builtin)} (known: ${known})` }]);
    }
    return normalizeScenario(raw, input.builtin);
  }
  return normalizeScenario(input.raw, input.sourceName);
}

function overridesOf(texts: readonly string[]): Override[] {
  if (texts.length > LIMITS.maxOverrides) {
    throw new InputError('set', [{ path: '', message: `has ${texts.length} overrides; ${limitText('maxOverrides')}` }]);
  }
  return texts.map(parseOverride);
}

async function handle(req: WorkerRequest): Promise<WorkerReply> {
  const started = performance.now();
  switch (req.type) {
    case 'run': {
      const base = scenarioOf(await resolved(req.scenario));
      const scenario = applyOverrides(base, overridesOf(req.overrides));
      // The lab keeps and draws the whole trace: hold the budget to what a kept trace may be, as the CLI does.
      const tooLong = keptTraceIssue(scenario.budget);
      if (tooLong !== undefined) throw new InputError('builtin' in req.scenario ? req.scenario.builtin : req.scenario.sourceName, [tooLong]);
      const marker = new StepMarker();
      const doc = runScenario(scenario, req.seed ?? scenario.seed, marker);
      return { id: req.id, ok: true, type: 'trace', trace: { ...payload(doc, serializeTrace(doc), started), marks: marker.marks } };
    }
    case 'normalize': {
      const base = scenarioOf(await resolved(req.scenario));
      const overrides = req.overrides ?? [];
      return { id: req.id, ok: true, type: 'scenario', scenario: overrides.length === 0 ? base : applyOverrides(base, overridesOf(overrides)) };
    }
    case 'load-trace': {
      // The trace schema's validators (1.8 MB) load with the first trace opened, not with the lab.
      const { validateTrace } = await import('../../sim/trace/validate.js');
      const doc = validateTrace(await readJson(req.file, req.fileName, 'trace'), req.fileName);
      // Re-serialize so the hash is of the canonical bytes, as the CLI computes it.
      const text = serializeTrace(doc);
      const hash = traceHash(doc);
      const marks = marksOfFile(doc, hash);
      return { id: req.id, ok: true, type: 'trace', trace: { ...payload(doc, text, started, hash), ...(marks === undefined ? {} : { marks }) } };
    }
  }
}

/**
 * The step marks of a simulated trace file: its scenario run again with its
 * seed, kept only when that run gives the file's events (by their run hash:
 * a trace from another version of Locklab, or edited, gets none). The run
 * again keeps no trace and is held to the kernel events the file says its
 * run took, so a file of any size costs at most the run it records.
 */
function marksOfFile(doc: TraceDocument, hash: string): StepMarks | undefined {
  if (doc.source !== 'sim') return undefined;
  try {
    const marker = new StepMarker();
    const again = runJob(normalizeScenario(doc.scenario, 'trace'), doc.seed, { marks: marker, maxEvents: doc.stop.events });
    return again.runHash === hash ? marker.marks : undefined;
  } catch {
    // A scenario this version refuses: the trace is shown without marks.
    return undefined;
  }
}

/** A trace with its hash and, derived here rather than on the page, what the lab draws of it. */
function payload(doc: TraceDocument, text: string, started: number, hash = traceHash(doc)): TracePayload {
  const workMs = performance.now() - started;
  const model = buildModel(doc);
  return { doc, text, hash, workMs, model, annotations: annotate(doc, model) };
}

/** What the refused input appears to be, for files (a trace to load, a scenario document). */
function whatOf(req: WorkerRequest): FileWhat | undefined {
  if (req.type === 'load-trace') return lastText === undefined ? undefined : classifyText(lastText);
  if (req.type === 'run') return undefined;
  if ('raw' in req.scenario) return classifyValue(req.scenario.raw);
  if ('file' in req.scenario && lastText !== undefined) return classifyText(lastText);
  return undefined;
}

/** Overrides come from the lab's own controls here, not a command line: name them as a setting. */
const sourceName = (source: string): string => (source === '--set' ? 'changed setting' : source);

/** Any failure as a reply: the page shows it, and the worker lives on for the next request. */
function failure(req: WorkerRequest, err: unknown): WorkerReply {
  if (err instanceof InputError) {
    const what = whatOf(req);
    return { id: req.id, ok: false, source: sourceName(err.source), issues: err.shown(), ...(what === undefined ? {} : { what }) };
  }
  const message =
    err instanceof RangeError ? `the input is too large to handle here (${err.message})` : `internal error: ${String((err as Error | null)?.message ?? err)}`;
  return { id: req.id, ok: false, source: 'simulation', issues: [{ path: '', message }] };
}

self.onmessage = async (ev: MessageEvent<WorkerRequest>) => {
  const req = ev.data;
  lastText = undefined;
  let reply: WorkerReply;
  try {
    reply = await handle(req);
  } catch (err) {
    reply = failure(req, err);
  }
  lastText = undefined;
  try {
    self.postMessage(reply);
  } catch (err) {
    // A reply too large to copy to the page still gets an answer.
    self.postMessage(failure(req, err));
  }
};
