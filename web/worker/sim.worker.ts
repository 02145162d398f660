/// <reference lib="webworker" />
/*
 * The simulation runs here, off the page's main thread, with the very same
 * sim/ modules the CLI uses, so a trace hashed in the browser equals the one
 * hashed under Node. Nothing here touches the DOM.
 */
import { InputError } from '../../sim/errors.js';
import { parseJson } from '../../sim/json.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { applyOverrides, parseOverride } from '../../sim/scenario/set.js';
import { BUILTIN_SCENARIOS } from '../../sim/scenarios/index.js';
import { runScenario } from '../../sim/run.js';
import { serializeTrace, traceHash, validateTrace } from '../../sim/trace/io.js';
import type { Scenario } from '../../sim/scenario/types.js';
import { annotate } from '../model/annotate.js';
import { buildModel } from '../model/build.js';
import type { TraceDocument } from '../../sim/trace/types.js';
import { classifyText, classifyValue, type FileWhat } from './classify.js';
import type { ScenarioInput, TracePayload, WorkerReply, WorkerRequest } from './protocol.js';

declare const self: DedicatedWorkerGlobalScope;

function scenarioOf(input: ScenarioInput): Scenario {
  if ('builtin' in input) {
    const raw = BUILTIN_SCENARIOS[input.builtin];
    if (raw === undefined) {
      const known = Object.keys(BUILTIN_SCENARIOS).join(', ');
      throw new InputError('scenario', [{ path: '', message: `no built-in scenario named ${JSON.stringify(input.builtin)} (known: ${known})` }]);
    }
    return normalizeScenario(raw, input.builtin);
  }
  return normalizeScenario(input.raw, input.sourceName);
}

function handle(req: WorkerRequest): WorkerReply {
  const started = performance.now();
  switch (req.type) {
    case 'run': {
      const base = scenarioOf(req.scenario);
      const scenario = applyOverrides(base, req.overrides.map(parseOverride));
      const doc = runScenario(scenario, req.seed ?? scenario.seed);
      return { id: req.id, ok: true, type: 'trace', trace: payload(doc, serializeTrace(doc), started) };
    }
    case 'normalize': {
      const base = scenarioOf(req.scenario);
      const overrides = req.overrides ?? [];
      return { id: req.id, ok: true, type: 'scenario', scenario: overrides.length === 0 ? base : applyOverrides(base, overrides.map(parseOverride)) };
    }
    case 'load-trace': {
      const doc = validateTrace(parseJson(req.text, req.fileName), req.fileName);
      // Re-serialize so the hash is of the canonical bytes, as the CLI computes it.
      const text = serializeTrace(doc);
      return { id: req.id, ok: true, type: 'trace', trace: payload(doc, text, started) };
    }
  }
}

/** A trace with its hash and, derived here rather than on the page, what the lab draws of it. */
function payload(doc: TraceDocument, text: string, started: number): TracePayload {
  const workMs = performance.now() - started;
  const model = buildModel(doc);
  return { doc, text, hash: traceHash(doc), workMs, model, annotations: annotate(doc, model) };
}

/** What the refused input appears to be, for files (a trace to load, a scenario document). */
function whatOf(req: WorkerRequest): FileWhat | undefined {
  if (req.type === 'load-trace') return classifyText(req.text);
  if (req.type !== 'run' && 'raw' in req.scenario) return classifyValue(req.scenario.raw);
  return undefined;
}

/** Overrides come from the lab's own controls here, not a command line: name them as a setting. */
const sourceName = (source: string): string => (source === '--set' ? 'changed setting' : source);

self.onmessage = (ev: MessageEvent<WorkerRequest>) => {
  const req = ev.data;
  let reply: WorkerReply;
  try {
    reply = handle(req);
  } catch (err) {
    if (err instanceof InputError) {
      const what = whatOf(req);
      reply = { id: req.id, ok: false, source: sourceName(err.source), issues: [...err.issues], ...(what === undefined ? {} : { what }) };
    } else reply = { id: req.id, ok: false, source: 'simulation', issues: [{ path: '', message: `internal error: ${String((err as Error).message ?? err)}` }] };
  }
  self.postMessage(reply);
};
