import { Fragment, useMemo, useState } from 'react';
import { marksByProcess, stepAt, type ProcessMarks } from '../../sim/clients/step-marks.js';
import { clientPhpLines, codeNote, type ClientPhp } from '../../sim/scenario/steps-php.js';
import { spanAt } from '../model/state-at.js';
import type { TraceModel } from '../model/types.js';
import type { LoadedTrace } from '../state/traces.js';
import { useUi } from '../state/ui.js';

/**
 * What each client of the run does, as the PHP its steps (or lifecycle
 * settings) stand for: the code behind the timeline, folded away until asked
 * for, and written only then. For a run (not a file), the line each process
 * is on at the playhead is marked, and follows it.
 */
export function ClientsCode({ trace }: { trace: LoadedTrace }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="card clients-code" data-testid="clients-code" onToggle={(ev) => setOpen(ev.currentTarget.open)}>
      <summary>What the clients run, as PHP</summary>
      {open && <Code trace={trace} />}
    </details>
  );
}

/** A process on a line at the playhead: its name, and whether it is frozen there (a GC pause). */
interface Here {
  readonly process: string;
  readonly paused: boolean;
}

/** Where each process of `client` is at the playhead: line number to the processes on it (the client, and its forked children). */
function whereAt(client: string, php: ClientPhp, marks: Map<string, ProcessMarks>, model: TraceModel, cursor: number, atUs: number): Map<number, Here[]> {
  const out = new Map<number, Here[]>();
  if (cursor < 0) return out;
  for (const [process, m] of marks) {
    if (process !== client && !process.startsWith(`${client}/`)) continue;
    const path = stepAt(m, cursor);
    const line = path === null || path === undefined ? undefined : php.lineOf(path);
    if (line === undefined) continue;
    const lane = model.clients.find((l) => l.name === process);
    const here = { process, paused: lane !== undefined && spanAt(lane.pauses, atUs) !== null };
    out.set(line, [...(out.get(line) ?? []), here]);
  }
  return out;
}

function Code({ trace }: { trace: LoadedTrace }) {
  const scenario = trace.doc.scenario;
  const note = codeNote(scenario);
  const code = useMemo(() => scenario.clients.map((c) => ({ name: c.name, machine: c.machine, php: clientPhpLines(scenario, c) })), [scenario]);
  const marks = useMemo(() => (trace.marks === undefined ? null : marksByProcess(trace.marks)), [trace.marks]);
  const cursor = useUi((s) => s.cursor);
  const atUs = useUi((s) => s.playheadUs);
  return (
    <>
      <p className="muted small">
        Symfony Lock&rsquo;s calls, with <code>work()</code> for the time in the critical section and <code>write()</code> for the write to the resource.
        {note !== null && ` ${note}`}
        {marks !== null && ' The line each process is on at the playhead is marked, and follows it as the run plays.'}
      </p>
      <div className="clients-code-grid">
        {code.map((c) => {
          const here = marks === null ? new Map<number, Here[]>() : whereAt(c.name, c.php, marks, trace.model, cursor, atUs);
          return (
            <section key={c.name} aria-label={`${c.name}'s code`}>
              <h3>
                {c.name} <span className="muted">on {c.machine}</span>
              </h3>
              <pre className="mono">
                <code>
                  {c.php.lines.map((l, i) => {
                    const on = here.get(i);
                    if (on === undefined) return <Fragment key={i}>{`${l.text}\n`}</Fragment>;
                    return (
                      <Fragment key={i}>
                        <span className={on.every((h) => h.paused) ? 'php-line here paused' : 'php-line here'} data-here={on.map((h) => h.process).join(' ')}>
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
