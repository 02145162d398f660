import { keysApart, lockCyclesLine, sentences, type LockCycles, type Sentences } from '../check/summary.js';
import { shortLeaseNotes } from '../scenario/short-lease.js';
import type { Colors } from 'picocolors/types.js';
import { describe, describeBelief, toneOf, type EventTone } from '../trace/describe.js';
import type { TraceDocument, TraceEvent } from '../trace/types.js';
import type { FindingList, Verdict } from '../check/verdict.js';
import { FINDINGS_KEPT } from '../check/checker.js';
import { formatDuration, formatInstant } from '../time.js';
import { grouped } from '../scenario/limits.js';
import { EventWindow, type ShownEvents } from './event-window.js';
import { stopReason, type RunEnd } from '../trace/stop-reason.js';
import { counted } from '../words.js';

export { runEndOf, stopReason, type RunEnd } from '../trace/stop-reason.js';

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

/** What a timeline is printed from: the run's description and verdict, and the events it shows. */
export type TimelineRun = Pick<TraceDocument, 'scenario' | 'seed' | 'source' | 'verdict'>;

/**
 * The terminal timeline: one aligned line per event (true time, the actor's
 * local clock, actor@machine, what happened, what the actor believes), with
 * double-ownership windows marked where they open and close and stale writes
 * flagged. Given a window with a head and a tail, the lines between them are
 * replaced by one that says how many were left out.
 */
export function formatTimeline(
  doc: TimelineRun & { events?: readonly TraceEvent[] },
  c: Colors,
  window?: ShownEvents,
  lineOf?: (e: TraceEvent) => number | undefined,
): string {
  const lines: string[] = [];
  writeTimeline(doc, c, window ?? EventWindow.of(doc.events ?? []), (piece) => lines.push(piece), lineOf);
  return lines.join('\n');
}

/** How many lines of a timeline `writeTimeline` hands on at a time. */
const LINES_PER_PIECE = 4096;

/**
 * The timeline of `formatTimeline`, handed to `write` in pieces of lines
 * joined by newlines, with no newline after the last piece: the pieces,
 * joined by newlines, are `formatTimeline`'s text. The head is read twice,
 * once to size the columns and once to print, and never held: a kept trace
 * of a million events is printed in the memory of a few thousand lines.
 * With `lineOf`, a column after the actor gives the line of the client's
 * code (as `--code` numbers it) each of its events happened on.
 */
export function writeTimeline(
  doc: TimelineRun,
  c: Colors,
  shown: ShownEvents,
  write: (piece: string) => void,
  lineOf?: (e: TraceEvent) => number | undefined,
): void {
  const stale = new Map(doc.verdict.staleWrites.map((w) => [w.seq, w]));
  // The event that ended a lost lock is marked where it happens: the holder does not know yet.
  const lost = new Map(doc.verdict.lostLocks.map((l) => [l.seqs[0], l]));
  const marks = doc.verdict.doubleOwnership.flatMap((d) => [
    { atUs: d.fromUs, text: `▲ double ownership: ${d.clients[0]} and ${d.clients[1]} both believe they hold ${d.key}` },
    { atUs: d.toUs, text: `▼ double ownership of ${d.key} by ${d.clients[0]} and ${d.clients[1]} ends (${formatDuration(d.toUs - d.fromUs)})` },
  ]);
  marks.sort((a, b) => a.atUs - b.atUs);

  const row = (e: TraceEvent) => ({
    e,
    time: formatInstant(e.timeUs),
    local: e.localUs === undefined ? '' : formatInstant(e.localUs),
    // Per-machine store nodes are already named actor@machine.
    who: e.actor.endsWith(`@${e.machine}`) ? e.actor : `${e.actor}@${e.machine}`,
  });
  const tail = shown.tail.map(row);
  // A loop, not Math.max(...rows): spreading a long trace would pass more arguments than the engine allows.
  let wTime = 'true time'.length;
  let wLocal = 'local clock'.length;
  let wWho = 'actor'.length;
  let headCount = 0;
  const measure = (r: ReturnType<typeof row>): void => {
    if (r.time.length > wTime) wTime = r.time.length;
    if (r.local.length > wLocal) wLocal = r.local.length;
    if (r.who.length > wWho) wWho = r.who.length;
  };
  for (const e of shown.head) {
    measure(row(e));
    headCount++;
  }
  for (const r of tail) measure(r);
  const wLine = lineOf === undefined ? 0 : 'line'.length;
  const indent = ' '.repeat(wTime + wLocal + wWho + 6 + (wLine === 0 ? 0 : wLine + 2));

  let out: string[] = [];
  const line = (text: string): void => {
    out.push(text);
    if (out.length === LINES_PER_PIECE) {
      write(out.join('\n'));
      out = [];
    }
  };
  line(
    c.bold(`${doc.scenario.name}`) +
      c.dim(
        ` · seed ${doc.seed} · ${doc.source === 'sim' ? 'simulated' : 'real servers'}${doc.scenario.resource.fencing ? ' · fencing on' : ' · fencing off'}`,
      ),
  );
  if (doc.scenario.summary !== '') line(c.dim(doc.scenario.summary));
  line('');
  line(c.dim(`${'true time'.padStart(wTime)}  ${'local clock'.padStart(wLocal)}  ${'actor'.padEnd(wWho)}  ${wLine === 0 ? '' : 'line  '}event`));
  let m = 0;
  const print = (r: ReturnType<typeof row>): void => {
    while (m < marks.length && marks[m]!.atUs <= r.e.timeUs) line(indent + c.bold(c.red(marks[m++]!.text)));
    const l = lost.get(r.e.seq);
    line(
      formatRow(r, wTime, wLocal, wWho, stale.get(r.e.seq), c, lineOf === undefined ? undefined : (lineOf(r.e)?.toString() ?? '').padStart(wLine)) +
        (l === undefined ? '' : c.bold(c.red(`  ← LOCK LOST: ${l.client} still believes it holds it`))),
    );
  };
  for (const e of shown.head) print(row(e));
  if (shown.elided > 0) {
    // Marks that fall among the left-out events are left out with them, and counted.
    const firstTailUs = tail[0]?.e.timeUs ?? Number.POSITIVE_INFINITY;
    let marksElided = 0;
    while (m < marks.length && marks[m]!.atUs < firstTailUs) {
      m++;
      marksElided++;
    }
    const lines = shown.elided + marksElided;
    const between = headCount === 0 ? 'at the start' : tail.length === 0 ? 'at the end' : 'here';
    line(
      c.dim(
        `${indent}… ${counted(lines, 'line', { show: grouped })} elided ${between} (${counted(shown.elided, 'event', { show: grouped })}${marksElided > 0 ? `, ${counted(marksElided, 'double-ownership mark')}` : ''}; of ${grouped(shown.total)} events in all) …`,
      ),
    );
  }
  for (const r of tail) print(r);
  while (m < marks.length) line(indent + c.bold(c.red(marks[m++]!.text)));
  if (out.length > 0) write(out.join('\n'));
}

function formatRow(
  r: { e: TraceEvent; time: string; local: string; who: string },
  wTime: number,
  wLocal: number,
  wWho: number,
  stale: Verdict['staleWrites'][number] | undefined,
  c: Colors,
  codeLine?: string,
): string {
  const local = r.local === '' ? ''.padStart(wLocal) : r.e.localUs === r.e.timeUs ? c.dim(r.local.padStart(wLocal)) : c.yellow(r.local.padStart(wLocal));
  let text = paint(c, toneOf(r.e), describe(r.e));
  if (stale !== undefined) text += stale.accepted ? c.bold(c.red('  ← STALE WRITE ACCEPTED')) : c.bold(c.green('  ← stale write stopped by fencing'));
  const belief = r.e.believes === undefined ? '' : c.dim(`  [${describeBelief(r.e)}]`);
  return `${r.time.padStart(wTime)}  ${local}  ${r.who.padEnd(wWho)}  ${codeLine === undefined ? '' : `${c.cyan(codeLine)}  `}${text}${belief}`;
}

const OUTCOME_TEXT: Readonly<Record<Verdict['outcome'], string>> = {
  safe: 'SAFE: no stale write reached the resource',
  fenced: 'FENCED: stale writes happened, and fencing rejected every one',
  unsafe: 'UNSAFE: a stale write was accepted and the resource is corrupted',
};

const OMITTED_NAMES: Record<FindingList, string> = {
  doubleOwnership: 'double-ownership windows',
  staleWrites: 'stale writes',
  lostLocks: 'lost locks',
  refusedHolders: 'refused holders',
  unprotectedWrites: 'unprotected writes',
};

/** How many sentences of each kind a printed verdict shows. */
export const SENTENCES_SHOWN = 10;
const SHOWN_GROUPS: ReadonlyArray<readonly [Exclude<keyof Sentences, 'outcome'>, string]> = [
  ['doubleOwnership', 'windows of double ownership'],
  ['lostLocks', 'lost locks'],
  ['staleWrites', 'stale writes'],
  ['unprotectedWrites', 'unprotected writes'],
  ['availability', 'sentences on waiting and on work without the lock'],
];

/** The verdict in sentences, then its counts; with `cycles`, the run's lock cycles and how many were double-owned. */
export function formatVerdict(
  doc: Pick<TraceDocument, 'verdict'> & { readonly scenario?: Pick<TraceDocument['scenario'], 'clients' | 'store' | 'network'> },
  c: Colors,
  cycles?: LockCycles,
): string {
  const v = doc.verdict;
  const colour = v.outcome === 'safe' ? c.green : v.outcome === 'fenced' ? c.yellow : c.red;
  const lines = [c.bold(colour(`Verdict: ${OUTCOME_TEXT[v.outcome]}`))];
  // The first few sentences of each kind: a long run's hundreds of windows would bury the outcome. The counts below, and --json, have them all.
  const said = sentences(v);
  for (const [group, what] of SHOWN_GROUPS) {
    const all = said[group];
    for (const s of all.slice(0, SENTENCES_SHOWN)) lines.push(`  • ${s}`);
    if (all.length > SENTENCES_SHOWN) lines.push(c.dim(`  … and ${grouped(all.length - SENTENCES_SHOWN)} more ${what} (--json lists them all)`));
  }
  for (const s of said.outcome) lines.push(`  • ${s}`);
  const apart = doc.scenario === undefined ? undefined : keysApart(doc.scenario.clients);
  if (apart !== undefined) lines.push(`  • ${c.yellow(apart)}`);
  for (const note of doc.scenario === undefined ? [] : shortLeaseNotes(doc.scenario)) lines.push(`  • ${c.yellow(note)}`);
  const n = (list: FindingList): number => v[list].length + (v.omitted?.[list] ?? 0);
  const accepted = v.staleWrites.filter((w) => w.accepted).length;
  lines.push(
    c.dim(
      `  ${counted(n('doubleOwnership'), 'double-ownership window')}, ${counted(n('staleWrites'), 'stale write')} (${v.omitted?.staleWrites === undefined ? accepted : `${accepted} of those listed`} accepted), ${counted(n('unprotectedWrites'), 'unprotected write')}, ${counted(n('lostLocks'), 'lost lock')}.`,
    ),
  );
  if (cycles !== undefined) lines.push(c.dim(`  ${lockCyclesLine(cycles)}`));
  if (v.omitted !== undefined) {
    const more = Object.entries(v.omitted).map(([list, k]) => `${grouped(k)} ${OMITTED_NAMES[list as FindingList]}`);
    lines.push(
      c.dim(`  Judged as it ran, in bounded memory: each list names its first ${grouped(FINDINGS_KEPT)}; ${more.join(', ')} more were counted, not listed.`),
    );
  }
  return lines.join('\n');
}

export function formatStop(end: RunEnd, c: Colors): string {
  const s = end.stop;
  const why = stopReason(end);
  if (why === undefined && end.source === 'real')
    return c.dim(`Real run completed: ${counted(end.traceEvents, 'trace event', { show: grouped })} over ${formatInstant(s.timeUs)} of real time.`);
  if (why === undefined)
    return c.dim(
      `Run completed: ${counted(end.traceEvents, 'trace event', { show: grouped })}, ${counted(s.events, 'kernel event', { show: grouped })}, ${formatInstant(s.timeUs)} of simulated time.`,
    );
  return c.bold(c.yellow(why));
}
