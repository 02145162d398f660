/// <reference lib="webworker" />
/*
 * The simulation runs here, off the page's main thread, with the very same
 * sim/ modules the CLI uses, so a trace hashed in the browser equals the one
 * hashed under Node. Nothing here touches the DOM.
 */
import { InputError, show } from '../../sim/errors.js';
import { grouped, keptTraceIssue, LIMITS, limitText } from '../../sim/scenario/limits.js';
import { parseJson, textOfBytes, type JsonKind } from '../../sim/json.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { applyOverrides, parseOverride, type Override } from '../../sim/scenario/set.js';
import { BUILTIN_SCENARIOS } from '../../sim/scenarios/index.js';
import { runScenario } from '../../sim/run.js';
import { serializeTrace, traceHash, validateTrace } from '../../sim/trace/io.js';
import type { Scenario } from '../../sim/scenario/types.js';
import type { ScenarioInput, WorkerReply, WorkerRequest } from './protocol.js';

declare const self: DedicatedWorkerGlobalScope;

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A file's JSON by the CLI's rules; the size is checked before a byte is read. */
async function readJson(file: Blob, source: string, kind: JsonKind): Promise<unknown> {
  const limit = kind === 'trace' ? 'maxTraceBytes' : 'maxScenarioBytes';
  if (file.size > LIMITS[limit]) throw new InputError(source, [{ path: '', message: `is ${grouped(file.size)} bytes; ${limitText(limit)}` }]);
  const bytes = new Uint8Array(await file.arrayBuffer());
  return parseJson(
    textOfBytes(bytes, source, kind, (b) => UTF8.decode(b)),
    source,
    kind,
  );
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
      const doc = runScenario(scenario, req.seed ?? scenario.seed);
      const text = serializeTrace(doc);
      return { id: req.id, ok: true, type: 'trace', trace: { doc, text, hash: traceHash(doc), workMs: performance.now() - started } };
    }
    case 'normalize':
      return { id: req.id, ok: true, type: 'scenario', scenario: scenarioOf(await resolved(req.scenario)) };
    case 'load-trace': {
      const doc = validateTrace(await readJson(req.file, req.fileName, 'trace'), req.fileName);
      // Re-serialize so the hash is of the canonical bytes, as the CLI computes it.
      const text = serializeTrace(doc);
      return { id: req.id, ok: true, type: 'trace', trace: { doc, text, hash: traceHash(doc), workMs: performance.now() - started } };
    }
  }
}

/** Any failure as a reply: the page shows it, and the worker lives on for the next request. */
function failure(id: number, err: unknown): WorkerReply {
  if (err instanceof InputError) return { id, ok: false, source: err.source, issues: err.shown() };
  const message =
    err instanceof RangeError ? `the input is too large to handle here (${err.message})` : `internal error: ${String((err as Error | null)?.message ?? err)}`;
  return { id, ok: false, source: 'simulation', issues: [{ path: '', message }] };
}

self.onmessage = async (ev: MessageEvent<WorkerRequest>) => {
  const req = ev.data;
  let reply: WorkerReply;
  try {
    reply = await handle(req);
  } catch (err) {
    reply = failure(req.id, err);
  }
  try {
    self.postMessage(reply);
  } catch (err) {
    // A reply too large to copy to the page still gets an answer.
    self.postMessage(failure(req.id, err));
  }
};
