import { summarize } from '../check/summary.js';
import type { Colors } from 'picocolors/types.js';
import { describe, describeBelief, toneOf, type EventTone } from '../trace/describe.js';
import type { TraceDocument, TraceEvent } from '../trace/types.js';
import type { Verdict } from '../check/verdict.js';
import { formatDuration, formatInstant } from '../time.js';

function paint(c: Colors, tone: EventTone, text: string): string {
  switch (tone) {
    case 'belief-gain':
      return c.green(text);
    case 'belief-loss':
      return c.yellow(text);
    case 'truth':
      return c.cyan(text);
    case 'truth-loss':
      return c.bold(c.magenta(text));
    case 'fault':
      return c.bold(c.magenta(text));
    case 'write-ok':
      return c.green(text);
    case 'write-bad':
      return c.yellow(text);
    case 'request':
      return text;
    case 'info':
      return c.dim(text);
  }
}

/**
 * The terminal timeline: one aligned line per event (true time, the actor's
 * local clock, actor@machine, what happened, what the actor believes), with
 * double-ownership windows marked where they open and close and stale writes
 * flagged.
 */
export function formatTimeline(doc: TraceDocument, c: Colors): string {
  const events = doc.events;
  const stale = new Map(doc.verdict.staleWrites.map((w) => [w.seq, w]));
  // The event that ended a lost lock is marked where it happens: the holder does not know yet.
  const lost = new Map(doc.verdict.lostLocks.map((l) => [l.seqs[0], l]));
  const marks = doc.verdict.doubleOwnership.flatMap((d) => [
    { atUs: d.fromUs, text: `▲ double ownership: ${d.clients[0]} and ${d.clients[1]} both believe they hold ${d.key}` },
    { atUs: d.toUs, text: `▼ double ownership of ${d.key} by ${d.clients[0]} and ${d.clients[1]} ends (${formatDuration(d.toUs - d.fromUs)})` },
  ]);
  marks.sort((a, b) => a.atUs - b.atUs);

  const rows = events.map((e) => ({
    e,
    time: formatInstant(e.timeUs),
    local: e.localUs === undefined ? '' : formatInstant(e.localUs),
    // Per-machine store nodes are already named actor@machine.
    who: e.actor.endsWith(`@${e.machine}`) ? e.actor : `${e.actor}@${e.machine}`,
  }));
  // A loop, not Math.max(...rows): spreading a long trace would pass more arguments than the engine allows.
  let wTime = 'true time'.length;
  let wLocal = 'local clock'.length;
  let wWho = 'actor'.length;
  for (const r of rows) {
    if (r.time.length > wTime) wTime = r.time.length;
    if (r.local.length > wLocal) wLocal = r.local.length;
    if (r.who.length > wWho) wWho = r.who.length;
  }
  const indent = ' '.repeat(wTime + wLocal + wWho + 6);

  const out: string[] = [];
  out.push(
    c.bold(`${doc.scenario.name}`) +
      c.dim(
        ` · seed ${doc.seed} · ${doc.source === 'sim' ? 'simulated' : 'real servers'}${doc.scenario.resource.fencing ? ' · fencing on' : ' · fencing off'}`,
      ),
  );
  if (doc.scenario.summary !== '') out.push(c.dim(doc.scenario.summary));
  out.push('');
  out.push(c.dim(`${'true time'.padStart(wTime)}  ${'local clock'.padStart(wLocal)}  ${'actor'.padEnd(wWho)}  event`));
  let m = 0;
  for (const r of rows) {
    while (m < marks.length && marks[m]!.atUs <= r.e.timeUs) out.push(indent + c.bold(c.red(marks[m++]!.text)));
    const l = lost.get(r.e.seq);
    out.push(
      formatRow(r, wTime, wLocal, wWho, stale.get(r.e.seq), c) +
        (l === undefined ? '' : c.bold(c.red(`  ← LOCK LOST: ${l.client} still believes it holds it`))),
    );
  }
  while (m < marks.length) out.push(indent + c.bold(c.red(marks[m++]!.text)));
  return out.join('\n');
}

function formatRow(
  r: { e: TraceEvent; time: string; local: string; who: string },
  wTime: number,
  wLocal: number,
  wWho: number,
  stale: Verdict['staleWrites'][number] | undefined,
  c: Colors,
): string {
  const local = r.local === '' ? ''.padStart(wLocal) : r.e.localUs === r.e.timeUs ? c.dim(r.local.padStart(wLocal)) : c.yellow(r.local.padStart(wLocal));
  let text = paint(c, toneOf(r.e), describe(r.e));
  if (stale !== undefined) text += stale.accepted ? c.bold(c.red('  ← STALE WRITE ACCEPTED')) : c.bold(c.green('  ← stale write stopped by fencing'));
  const belief = r.e.believes === undefined ? '' : c.dim(`  [${describeBelief(r.e)}]`);
  return `${r.time.padStart(wTime)}  ${local}  ${r.who.padEnd(wWho)}  ${text}${belief}`;
}

const OUTCOME_TEXT: Readonly<Record<Verdict['outcome'], string>> = {
  safe: 'SAFE: no stale write reached the resource',
  fenced: 'FENCED: stale writes happened, and fencing rejected every one',
  unsafe: 'UNSAFE: a stale write was accepted and the resource is corrupted',
};

export function formatVerdict(doc: TraceDocument, c: Colors): string {
  const v = doc.verdict;
  const colour = v.outcome === 'safe' ? c.green : v.outcome === 'fenced' ? c.yellow : c.red;
  const lines = [c.bold(colour(`Verdict: ${OUTCOME_TEXT[v.outcome]}`))];
  for (const s of summarize(v)) lines.push(`  • ${s}`);
  lines.push(
    c.dim(
      `  ${v.doubleOwnership.length} double-ownership window(s), ${v.staleWrites.length} stale write(s) (${v.staleWrites.filter((w) => w.accepted).length} accepted), ${v.unprotectedWrites.length} unprotected write(s), ${v.lostLocks.length} lost lock(s).`,
    ),
  );
  return lines.join('\n');
}

export function formatStop(doc: TraceDocument, c: Colors): string {
  const s = doc.stop;
  if (doc.source === 'real' && s.reason === 'completed')
    return c.dim(`Real run completed: ${doc.events.length} trace events over ${formatInstant(s.timeUs)} of real time.`);
  if (s.reason === 'completed')
    return c.dim(`Run completed: ${doc.events.length} trace events, ${s.events} kernel events, ${formatInstant(s.timeUs)} of simulated time.`);
  const which =
    s.reason === 'event-budget'
      ? `event budget (${doc.scenario.budget.maxEvents} events)`
      : `simulated-time budget (${formatDuration(doc.scenario.budget.maxTimeMs * 1000)})`;
  return c.bold(
    c.yellow(
      `Run stopped at its ${which} after ${s.events} kernel events and ${formatInstant(s.timeUs)}: something in the scenario never finishes (a blocking acquire with no waitTimeoutMs?). Raise budget.maxEvents or budget.maxTimeMs to let it run longer.`,
    ),
  );
}
