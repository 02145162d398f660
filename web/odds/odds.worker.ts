/// <reference lib="webworker" />
/*
 * A sweep worker of the Odds view: runs batches of seeds with the very same
 * sim/odds code the command line's worker threads run, and answers with
 * counts only. The page starts one per core.
 */
import { InputError } from '../../sim/errors.js';
import { runBatch } from '../../sim/odds/batch.js';
import { shrinkScenario } from '../../sim/odds/shrink.js';
import type { OddsReply, OddsRequest } from './protocol.js';

declare const self: DedicatedWorkerGlobalScope;

function handle(req: OddsRequest): OddsReply {
  if (req.type === 'batch') {
    const started = performance.now();
    const tally = runBatch(req.scenario, req.from, req.to);
    return { id: req.id, ok: true, type: 'batch', tally, ms: performance.now() - started };
  }
  const r = shrinkScenario(req.scenario, req.seed);
  return { id: req.id, ok: true, type: 'shrink', scenario: r.scenario, changes: [...r.changes], runs: r.runs };
}

self.onmessage = (ev: MessageEvent<OddsRequest>) => {
  let reply: OddsReply;
  try {
    reply = handle(ev.data);
  } catch (err) {
    if (err instanceof InputError) reply = { id: ev.data.id, ok: false, source: err.source, issues: [...err.issues] };
    else reply = { id: ev.data.id, ok: false, source: 'sweep', issues: [{ path: '', message: `internal error: ${String((err as Error).message ?? err)}` }] };
  }
  self.postMessage(reply);
};
