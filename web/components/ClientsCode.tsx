import { Fragment, useMemo, type CSSProperties } from 'react';
import { arrivals, marksByProcess, stepAt, type ProcessMarks } from '../../sim/clients/step-marks.js';
import { clientPhpLines, codeNote, type ClientPhp } from '../../sim/scenario/steps-php.js';
import { spanAt } from '../model/state-at.js';
import type { TraceModel } from '../model/types.js';
import type { LoadedTrace } from '../state/traces.js';
import { useUi } from '../state/ui.js';

/**
 * What each client of the run does, as the PHP its steps (or lifecycle
 * settings) stand for: the code behind the timeline, folded away until asked
 * for (and left open, once opened, for every run after; a link carries it),
 * and written only then. For a run (or a simulated trace file that runs
 * again to the same bytes), the line each process is on at the playhead is
 * marked, and follows it; a line's button moves the playhead to the
 * client's next arrival there (`locked`: not while a story asks what
 * happens next, which the move would tell).
 */
export function ClientsCode({ trace, locked = false }: { trace: LoadedTrace; locked?: boolean }) {
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
      {open && <Code trace={trace} locked={locked} />}
    </details>
  );
}

/** A process on a line at the playhead: its name, and whether it is frozen there (a GC pause). */
interface Here {
  readonly process: string;
  readonly paused: boolean;
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
function whereAt(client: string, php: ClientPhp, marks: Map<string, ProcessMarks>, model: TraceModel, cursor: number, atUs: number): Map<number, Here[]> {
  const out = new Map<number, Here[]>();
  if (cursor < 0) return out;
  for (const [process, m] of processesOf(client, marks)) {
    const path = stepAt(m, cursor);
    const line = path === null || path === undefined ? undefined : php.lineOf(path);
    if (line === undefined) continue;
    const lane = model.clients.find((l) => l.name === process);
    add(out, line, { process, paused: lane !== undefined && spanAt(lane.pauses, atUs) !== null });
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

function Code({ trace, locked }: { trace: LoadedTrace; locked: boolean }) {
  const scenario = trace.doc.scenario;
  const note = codeNote(scenario);
  const code = useMemo(() => scenario.clients.map((c) => ({ name: c.name, machine: c.machine, php: clientPhpLines(scenario, c) })), [scenario]);
  const marks = useMemo(() => (trace.marks === undefined ? null : marksByProcess(trace.marks)), [trace.marks]);
  const arrived = useMemo(
    () => (marks === null ? null : code.map((c) => arrivalsByLine(c.name, c.php, marks, trace.doc.events.length))),
    [code, marks, trace.doc.events.length],
  );
  const cursor = useUi((s) => s.cursor);
  const atUs = useUi((s) => s.playheadUs);
  return (
    <>
      <p className="muted small">
        Symfony Lock&rsquo;s calls, with <code>work()</code> for the time in the critical section and <code>write()</code> for the write to the resource.
        {note !== null && ` ${note}`}
        {marks !== null &&
          ' The line each process is on at the playhead is marked, and follows it as the run plays; ▸ beside a line moves the playhead to the next time the client is there.'}
      </p>
      <div className="clients-code-grid">
        {code.map((c, k) => {
          const lines = arrived?.[k];
          const here = marks === null ? new Map<number, Here[]>() : whereAt(c.name, c.php, marks, trace.model, cursor, atUs);
          return (
            <section key={c.name} aria-label={`${c.name}'s code`}>
              <h3>
                {c.name} <span className="muted">on {c.machine}</span>
              </h3>
              <pre
                className={lines === undefined ? 'mono' : 'mono with-gutter'}
                style={{ '--digits': Math.max(2, String(c.php.lines.length).length) } as CSSProperties}
              >
                <code>
                  {c.php.lines.map((l, i) => {
                    const on = here.get(i);
                    const seqs = lines?.get(i);
                    // A line the client comes to has a button in the code's left margin, to go to the next time it is there.
                    const gutter =
                      seqs === undefined ? null : (
                        <button
                          type="button"
                          className="php-go"
                          aria-label={`Go to the next time ${c.name} is on line ${i + 1}: ${l.text.trim()}`}
                          title={`Go to the next time ${c.name} is here`}
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
                    return (
                      <Fragment key={i}>
                        {gutter}
                        <span
                          className={on.every((h) => h.paused) ? 'php-line here paused' : 'php-line here'}
                          data-n={i + 1}
                          data-here={on.map((h) => h.process).join(' ')}
                        >
                          {l.text}
                          <span className="php-here"> ◀ {on.map((h) => (h.paused ? `${h.process}, paused` : h.process)).join('; ')}</span>
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
