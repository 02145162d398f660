import { Fragment, useMemo, type CSSProperties } from 'react';
import { arrivals, marksByProcess, stepAt, type ProcessMarks } from '../../sim/clients/step-marks.js';
import { clientPhpLines, codeNote, type ClientPhp } from '../../sim/scenario/steps-php.js';
import { spanAt } from '../model/state-at.js';
import type { TraceModel } from '../model/types.js';
import type { LoadedTrace } from '../state/traces.js';
import { useCursorOf, useUi } from '../state/ui.js';
import { usePanelHeading } from './heading.js';

/**
 * What each client of the run does, as the PHP its steps (or lifecycle
 * settings) stand for: the code behind the timeline, folded away until asked
 * for (and left open, once opened, for every run after; a link carries it),
 * and written only then. For a run (or a simulated trace file that runs
 * again to the same bytes), the line each process is on at the playhead is
 * marked, and follows it; a line's button moves the playhead to the
 * client's next arrival there (`locked`: not while a story asks what
 * happens next, which the move would tell). With `other` (Compare's Run 2,
 * or a story's recording on real servers), each process is marked in each
 * run at the shared playhead, and a client whose code differs between the
 * runs has each run's code shown.
 */
export function ClientsCode({
  trace,
  other = null,
  names = COMPARE_RUNS,
  locked = false,
}: {
  trace: LoadedTrace;
  other?: LoadedTrace | null;
  names?: RunNames;
  locked?: boolean;
}) {
  const open = useUi((s) => s.codeOpen);
  return (
    <details
      className="card clients-code"
      data-testid="clients-code"
      open={open}
      onToggle={(ev) => {
        const now = ev.currentTarget.open;
        if (now !== useUi.getState().codeOpen) useUi.getState().set({ codeOpen: now });
      }}
    >
      <summary>What the clients run, as PHP</summary>
      {open && <Code trace={trace} other={other} names={names} locked={locked} />}
    </details>
  );
}

/** How the panel names the two runs it marks: where a process is ("B in run 2"), and each run ("run 2 does not say…"). */
export interface RunNames {
  readonly at: readonly [string, string];
  readonly both: string;
  readonly of: readonly [string, string];
}

/** Compare's two runs. */
export const COMPARE_RUNS: RunNames = { at: ['in run 1', 'in run 2'], both: 'in both runs', of: ['run 1', 'run 2'] };

/** A challenge's attempt, beside the run it changes. */
export const ATTEMPT_AND_ORIGINAL: RunNames = { at: ['in your attempt', 'in the original run'], both: 'in both', of: ['your attempt', 'the original run'] };

/** A story as simulated, beside its recording on real servers. */
export const STORY_AND_REAL: RunNames = { at: ['in the simulation', 'on the real servers'], both: 'in both', of: ['the simulation', 'the real run'] };

/** A process on a line at the playhead: its name, whether it is frozen there (a GC pause), and, in Compare, which run it is of. */
interface Here {
  readonly process: string;
  readonly paused: boolean;
  readonly run?: 1 | 2;
}

/** The marks of `client`'s processes: the client's own, and its forked children's. */
function processesOf(client: string, marks: Map<string, ProcessMarks>): Array<[string, ProcessMarks]> {
  return [...marks].filter(([process]) => process === client || process.startsWith(`${client}/`));
}

/** Adds a value to a map of lists, in place: a long run adds tens of thousands. */
function add<T>(map: Map<number, T[]>, key: number, value: T): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** Where each process of `client` is at the playhead: line number to the processes on it (the client, and its forked children). */
function whereAt(
  client: string,
  php: ClientPhp,
  marks: Map<string, ProcessMarks>,
  model: TraceModel,
  cursor: number,
  atUs: number,
  run?: 1 | 2,
  out = new Map<number, Here[]>(),
): Map<number, Here[]> {
  if (cursor < 0) return out;
  for (const [process, m] of processesOf(client, marks)) {
    const path = stepAt(m, cursor);
    const line = path === null || path === undefined ? undefined : php.lineOf(path);
    if (line === undefined) continue;
    const lane = model.clients.find((l) => l.name === process);
    const paused = lane !== undefined && spanAt(lane.pauses, atUs) !== null;
    add(out, line, run === undefined ? { process, paused } : { process, paused, run });
  }
  return out;
}

/**
 * When `client`'s processes come to each line of its code, in order: the
 * events a "go to this line" can move the playhead to.
 */
function arrivalsByLine(client: string, php: ClientPhp, marks: Map<string, ProcessMarks>, events: number): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const [, m] of processesOf(client, marks)) {
    for (const a of arrivals(m, events)) {
      const line = a.path === null ? undefined : php.lineOf(a.path);
      if (line !== undefined) add(out, line, a.seq);
    }
  }
  for (const seqs of out.values()) seqs.sort((x, y) => x - y);
  return out;
}

/** The first of `seqs` after the cursor, or the first of all when none is after it (as a search goes round). */
const nextAfter = (seqs: readonly number[], cursor: number): number => seqs.find((s) => s > cursor) ?? seqs[0]!;

/** One run's side of the code: its trace, its marks by process, and its event at the playhead. */
interface Side {
  readonly run: 1 | 2;
  readonly trace: LoadedTrace;
  readonly marks: Map<string, ProcessMarks> | null;
  readonly cursor: number;
}

/** A block of code on screen: one client's PHP, and the runs whose processes are marked on it (both, where the two runs' code is the same). */
interface Block {
  readonly client: string;
  readonly machine: string;
  readonly php: ClientPhp;
  readonly sides: readonly Side[];
  /** In Compare, where the two runs' code for this client differs: which run this block is. */
  readonly only?: 1 | 2;
}

const samePhp = (a: ClientPhp, b: ClientPhp): boolean => a.lines.length === b.lines.length && a.lines.every((l, i) => l.text === b.lines[i]!.text);

/**
 * The words after ◀ on a line: each process on it, and in Compare which run
 * (or both) it is there in: "A", "A, paused", "A in run 2", "B in both runs"
 * (`oneRun`: a block of one run's code, which its heading names).
 */
function hereWords(on: readonly Here[], oneRun: boolean, names: RunNames): string {
  const words: string[] = [];
  const seen = new Set<string>();
  for (const h of on) {
    const who = h.paused ? `${h.process}, paused` : h.process;
    if (h.run === undefined || oneRun) {
      words.push(who);
      continue;
    }
    if (seen.has(who)) continue;
    seen.add(who);
    const both = on.some((o) => o !== h && o.process === h.process && o.paused === h.paused && o.run !== h.run);
    words.push(`${who}${h.paused ? ',' : ''} ${both ? names.both : names.at[h.run - 1]}`);
  }
  return words.join('; ');
}

/**
 * What the panel says of its marks: none when neither run has any; for one
 * run, how to follow it; for two, which of them are marked, whether a
 * client's code is shown once per run, and that ▸ follows the first.
 */
function markNote(first: boolean, second: boolean | null, split: boolean, names: RunNames): string {
  if (second === null)
    return first
      ? ' The line each process is on at the playhead is marked, and follows it as the run plays; ▸ beside a line moves the playhead to the next time the client is there.'
      : '';
  if (!first && !second) return '';
  const which = !second
    ? ` The line each process of ${names.of[0]} is on at the playhead is marked; ${names.of[1]} does not say which line made its events (a trace recorded on real servers before marks were kept, or from another version).`
    : !first
      ? ` The line each process of ${names.of[1]} is on at the playhead is marked; ${names.of[0]} does not say which line made its events.`
      : ` The line each process is on at the playhead is marked in ${names.of[0]} and in ${names.of[1]}.`;
  const shown = split ? ' Where a client\u2019s code differs between the runs, each run\u2019s is shown.' : '';
  const go = first ? ` ▸ beside a line moves the playhead to the next time the client is there ${names.at[0]}.` : '';
  return which + shown + go;
}

function Code({ trace, other, names, locked }: { trace: LoadedTrace; other: LoadedTrace | null; names: RunNames; locked: boolean }) {
  const H = usePanelHeading(2);
  const scenario = trace.doc.scenario;
  const note = codeNote(scenario);
  const code = useMemo(() => scenario.clients.map((c) => ({ name: c.name, machine: c.machine, php: clientPhpLines(scenario, c) })), [scenario]);
  const otherScenario = other?.doc.scenario;
  const otherCode = useMemo(
    () =>
      otherScenario === undefined ? null : otherScenario.clients.map((c) => ({ name: c.name, machine: c.machine, php: clientPhpLines(otherScenario, c) })),
    [otherScenario],
  );
  const marks = useMemo(() => (trace.marks === undefined ? null : marksByProcess(trace.marks)), [trace.marks]);
  const otherMarks = useMemo(() => (other?.marks === undefined ? null : marksByProcess(other.marks)), [other?.marks]);
  // Only the first run's arrivals: its line buttons move the playhead, which steps through the first run's events.
  const arrived = useMemo(
    () => (marks === null ? null : new Map(code.map((c) => [c.name, arrivalsByLine(c.name, c.php, marks, trace.doc.events.length)]))),
    [code, marks, trace.doc.events.length],
  );
  const cursor = useUi((s) => s.cursor);
  const atUs = useUi((s) => s.playheadUs);
  const first: Side = { run: 1, trace, marks, cursor };
  // The second run's event at the shared playhead, as its side panel reads it.
  const otherCursor = useCursorOf(other ?? trace, other === null);
  const second: Side | null = other === null ? null : { run: 2, trace: other, marks: otherMarks, cursor: otherCursor };
  const blocks: Block[] = [];
  for (const c of code) {
    const twin = otherCode?.find((o) => o.name === c.name);
    if (second === null) blocks.push({ client: c.name, machine: c.machine, php: c.php, sides: [first] });
    else if (twin !== undefined && samePhp(c.php, twin.php)) blocks.push({ client: c.name, machine: c.machine, php: c.php, sides: [first, second] });
    else {
      blocks.push({ client: c.name, machine: c.machine, php: c.php, sides: [first], only: 1 });
      if (twin !== undefined) blocks.push({ client: twin.name, machine: twin.machine, php: twin.php, sides: [second], only: 2 });
    }
  }
  if (second !== null)
    for (const o of otherCode ?? [])
      if (!code.some((c) => c.name === o.name)) blocks.push({ client: o.name, machine: o.machine, php: o.php, sides: [second], only: 2 });
  return (
    <>
      <p className="muted small">
        Symfony Lock&rsquo;s calls, with <code>work()</code> for the time in the critical section and <code>write()</code> for the write to the resource.
        {note !== null && ` ${note}`}
        {markNote(
          marks !== null,
          second === null ? null : otherMarks !== null,
          blocks.some((b) => b.only !== undefined),
          names,
        )}
      </p>
      <div className="clients-code-grid">
        {blocks.map((b) => {
          const lines = b.sides.includes(first) ? arrived?.get(b.client) : undefined;
          const here = new Map<number, Here[]>();
          for (const side of b.sides)
            if (side.marks !== null) whereAt(b.client, b.php, side.marks, side.trace.model, side.cursor, atUs, second === null ? undefined : side.run, here);
          return (
            <section
              key={`${b.client}/${b.only ?? 0}`}
              aria-label={`${b.client}'s code${b.only === undefined ? '' : ` ${names.at[b.only - 1]}`}`}
              data-run={b.only}
            >
              <H className="code-title">
                {b.client} <span className="muted">on {b.machine}</span>
                {b.only !== undefined && <span className="muted"> · {names.of[b.only - 1]}</span>}
              </H>
              <pre
                className={lines === undefined ? 'mono' : 'mono with-gutter'}
                style={{ '--digits': Math.max(2, String(b.php.lines.length).length) } as CSSProperties}
              >
                <code>
                  {b.php.lines.map((l, i) => {
                    const on = here.get(i);
                    const seqs = lines?.get(i);
                    // A line the client comes to has a button in the code's left margin, to go to the next time it is there.
                    const gutter =
                      seqs === undefined ? null : (
                        <button
                          type="button"
                          className="php-go"
                          aria-label={`Go to the next time ${b.client} is on line ${i + 1}: ${l.text.trim()}`}
                          title={`Go to the next time ${b.client} is here`}
                          disabled={locked}
                          onClick={() => useUi.getState().inspect(nextAfter(seqs, useUi.getState().cursor))}
                        />
                      );
                    // Numbered as `locklab run --code` numbers it; the number is drawn, so copying the code copies the code alone.
                    if (on === undefined)
                      return (
                        <Fragment key={i}>
                          {gutter}
                          <span className="php-line" data-n={i + 1}>
                            {l.text}
                          </span>
                          {'\n'}
                        </Fragment>
                      );
                    const inRun = (n: 1 | 2) =>
                      on
                        .filter((h) => (h.run ?? 1) === n)
                        .map((h) => h.process)
                        .join(' ');
                    return (
                      <Fragment key={i}>
                        {gutter}
                        <span
                          className={on.every((h) => h.paused) ? 'php-line here paused' : 'php-line here'}
                          data-n={i + 1}
                          data-here={inRun(1) || undefined}
                          data-here-run2={second === null ? undefined : inRun(2) || undefined}
                        >
                          {l.text}
                          <span className="php-here"> ◀ {hereWords(on, b.only !== undefined, names)}</span>
                        </span>
                        {'\n'}
                      </Fragment>
                    );
                  })}
                </code>
              </pre>
            </section>
          );
        })}
      </div>
    </>
  );
}
