import { deriveIntervals } from '../check/intervals.js';
import { describe } from '../trace/describe.js';
import { kindSpec } from '../trace/kinds.js';
import type { TraceDocument, TraceEvent } from '../trace/types.js';

/*
 * A trace in Chrome's trace-event format (the JSON object form), which
 * Perfetto and chrome://tracing open. Each client, store node and the
 * resource gets a track: beliefs and holdings as spans, every event as an
 * instant with its sentence, and the checker's double-ownership windows on
 * a track of their own. Times are the trace's true microseconds, the unit
 * the format uses.
 */

export interface ChromeEvent {
  name: string;
  cat: string;
  ph: 'X' | 'i' | 'M';
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  s?: 't';
  args?: Record<string, unknown>;
}

export interface ChromeTrace {
  traceEvents: ChromeEvent[];
  displayTimeUnit: 'ms';
  otherData: Record<string, unknown>;
}

const PIDS = { clients: 1, store: 2, resource: 3, world: 4, checker: 5 } as const;
type Group = keyof typeof PIDS;

function groupOf(e: TraceEvent): Group {
  const actor = kindSpec(e.kind)?.actor;
  if (actor === 'client' || e.believes !== undefined) return 'clients';
  if (actor === 'store') return 'store';
  if (actor === 'resource') return 'resource';
  return 'world';
}

export function toChromeTrace(doc: TraceDocument): ChromeTrace {
  const tids = new Map<string, { pid: number; tid: number }>();
  const out: ChromeEvent[] = [];
  const track = (group: Group, name: string): { pid: number; tid: number } => {
    const id = `${group}\u0000${name}`;
    let t = tids.get(id);
    if (t === undefined) {
      t = { pid: PIDS[group], tid: tids.size + 1 };
      tids.set(id, t);
      out.push({ name: 'thread_name', cat: '__metadata', ph: 'M', ts: 0, pid: t.pid, tid: t.tid, args: { name } });
      out.push({ name: 'thread_sort_index', cat: '__metadata', ph: 'M', ts: 0, pid: t.pid, tid: t.tid, args: { sort_index: t.tid } });
    }
    return t;
  };
  for (const [group, pid] of Object.entries(PIDS)) {
    const label = { clients: 'clients', store: 'lock store', resource: 'protected resource', world: 'network and faults', checker: 'checker' }[group as Group];
    out.push({ name: 'process_name', cat: '__metadata', ph: 'M', ts: 0, pid, tid: 0, args: { name: label } });
    out.push({ name: 'process_sort_index', cat: '__metadata', ph: 'M', ts: 0, pid, tid: 0, args: { sort_index: pid } });
  }
  // Client tracks first, in the order the scenario lists them, so the picture reads like the lab's lanes.
  for (const c of doc.scenario.clients) track('clients', c.name);

  const iv = deriveIntervals(doc.events);
  const endOf = (u: number | undefined): number => u ?? iv.lastUs;
  for (const b of iv.beliefs) {
    const t = track('clients', b.client);
    const fence = b.fence === undefined ? '' : ` (token ${b.fence})`;
    out.push({
      name: `believes it holds ${b.key}${fence}`,
      cat: 'belief',
      ph: 'X',
      ts: b.startUs,
      dur: endOf(b.endUs) - b.startUs,
      ...t,
      args: { owner: b.owner, seq: b.startSeq },
    });
  }
  for (const h of iv.nodeHoldings) {
    const t = track('store', h.node);
    const fence = h.fence === undefined ? '' : ` (token ${h.fence})`;
    out.push({
      name: `holds ${h.key} for ${h.owner}${fence}`,
      cat: 'truth',
      ph: 'X',
      ts: h.startUs,
      dur: endOf(h.endUs) - h.startUs,
      ...t,
      args: { owner: h.owner, seq: h.startSeq, ended: h.endKind ?? 'at the end of the run' },
    });
  }
  for (const w of iv.windows) {
    const t = track('checker', 'double ownership');
    out.push({
      name: `${w.clients[0]} and ${w.clients[1]} both believe they hold ${w.key}`,
      cat: 'double-ownership',
      ph: 'X',
      ts: w.fromUs,
      dur: w.toUs - w.fromUs,
      ...t,
      args: { owners: w.owners },
    });
  }
  for (const e of doc.events) {
    const group = groupOf(e);
    const t = track(group, group === 'world' ? e.actor : e.actor);
    const args: Record<string, unknown> = { seq: e.seq, machine: e.machine, text: describe(e) };
    if (e.localUs !== undefined) args.localUs = e.localUs;
    if (e.owner !== undefined) args.owner = e.owner;
    if (e.fence !== undefined) args.fence = e.fence;
    if (e.believes !== undefined) args.believes = e.believes;
    out.push({ name: e.kind, cat: kindSpec(e.kind)?.tone ?? 'event', ph: 'i', s: 't', ts: e.timeUs, ...t, args });
  }
  return {
    traceEvents: out,
    displayTimeUnit: 'ms',
    otherData: { scenario: doc.scenario.name, seed: doc.seed, source: doc.source, outcome: doc.verdict.outcome },
  };
}

export function serializeChromeTrace(doc: TraceDocument): string {
  return `${JSON.stringify(toChromeTrace(doc))}\n`;
}
