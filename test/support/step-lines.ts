import { marksByProcess, stepAt, type StepMarks } from '../../sim/clients/step-marks.js';
import { clientPhpLines } from '../../sim/scenario/steps-php.js';
import type { Scenario } from '../../sim/scenario/types.js';
import type { TraceDocument } from '../../sim/trace/types.js';

/* The line of its PHP each event of a run happens on, by its step marks: shared by the simulated runs' tests and the real recordings'. */

/** The line of its client's PHP a process is on at each of its own events: null where it is on none (before its first step, in a destructor, gone). */
export function linesAtEvents(s: Scenario, doc: TraceDocument, marks: StepMarks): Array<{ seq: number; process: string; kind: string; line: string | null }> {
  const by = marksByProcess(marks);
  const php = new Map(s.clients.map((c) => [c.name, clientPhpLines(s, c)]));
  const out = [];
  for (const e of doc.events) {
    const m = by.get(e.actor);
    if (m === undefined) continue;
    const code = php.get(e.actor.split('/')[0]!)!;
    const path = stepAt(m, e.seq);
    const i = path === null || path === undefined ? undefined : code.lineOf(path);
    out.push({ seq: e.seq, process: e.actor, kind: e.kind, line: i === undefined ? null : code.lines[i]!.text.trim() });
  }
  return out;
}

/** What the line a process is on must say, by the kind of event it records there; kinds not named may come from more than one line. */
const LINE_OF_KIND: ReadonlyArray<readonly [RegExp, RegExp]> = [
  [/^(acquire\.request|exists\.request|acquire\.giveup)$/, /->acquire(Read)?\(|->get\(/],
  [/^work\.start$/, /^work\(/],
  [/^write\.request$/, /^write\(\);$/],
  // A release is the release call's; or a destructor's, where a Lock object is replaced or a child exits; or acquire()'s, cleaning up after a lease that ran out in flight or a quorum missed.
  [/^release\.request$/, /->release\(\);|->del\(|->delete\(|^exit\(0\);$|^\$lock = \$factory->createLock|->acquire\(/],
  [/^refresh\.request$/, /->refresh\(|^work\(/],
  [/^(check\.ok|check\.expired)$/, /isExpired\(\)/],
  [/^sleep\.start$/, /sleep\(/],
  [/^process\.fork$/, /pcntl_fork\(\)/],
  [/^exception\.user$/, /^throw new/],
];

export function mismatches(s: Scenario, doc: TraceDocument, marks: StepMarks): string[] {
  const bad: string[] = [];
  for (const e of linesAtEvents(s, doc, marks)) {
    const want = LINE_OF_KIND.find(([kind]) => kind.test(e.kind))?.[1];
    // A release by the Lock's destructor, at the end of the main script, is on no line of its own.
    if (want === undefined || (e.kind === 'release.request' && e.line === null && !e.process.includes('/'))) continue;
    if (e.line === null || !want.test(e.line)) bad.push(`#${e.seq} ${e.process} ${e.kind}: on ${JSON.stringify(e.line)}`);
  }
  return bad;
}

/**
 * What is wrong with a run's marks, beside its events: an event on a line
 * that cannot make it; a client that started but has no marks; a process
 * still on a line after its crash (it says nothing more, killed).
 */
export function markProblems(s: Scenario, doc: TraceDocument, marks: StepMarks): string[] {
  const bad = mismatches(s, doc, marks);
  const by = marksByProcess(marks);
  for (const e of doc.events) {
    if (e.kind === 'client.start' && !by.has(e.actor)) bad.push(`${e.actor} started (#${e.seq}) but has no marks`);
    if (e.kind === 'process.crash')
      for (const [process, m] of by)
        if ((process === e.actor || process.startsWith(`${e.actor}/`)) && e.seq + 1 < doc.events.length && typeof stepAt(m, e.seq + 1) === 'string')
          bad.push(`${process} is still on a line after its crash (#${e.seq})`);
  }
  for (let i = 1; i < marks.seq.length; i++) if (marks.seq[i]! < marks.seq[i - 1]!) bad.push(`marks out of order at ${i}`);
  return bad;
}
