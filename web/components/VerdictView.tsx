import { keysApart, lockCyclesLine, summarize } from '../../sim/check/summary.js';
import type { Verdict } from '../../sim/check/verdict.js';
import { shortLeaseNotes, type TtlWords } from '../../sim/scenario/short-lease.js';
import { formatInstant } from '../../sim/time.js';
import { runEndOf, stopReason } from '../../sim/trace/stop-reason.js';
import type { LoadedTrace } from '../state/traces.js';
import { useUi } from '../state/ui.js';

const HEADLINE: Readonly<Record<Verdict['outcome'], string>> = {
  unsafe: '✕ Unsafe: a stale write was accepted and the resource is corrupted',
  fenced: '◆ Fenced: locks overlapped, but fencing rejected every stale write',
  safe: '✓ Safe: no stale write reached the resource',
};

const SYMBOL = { damage: '✕', fenced: '◆', warning: '⚠' } as const;

/**
 * The checker's verdict in words: the outcome, with a symbol as well as a
 * colour, then each finding numbered as on the timeline. Choosing one moves
 * the playhead to its event and shows its details (on the primary trace;
 * another trace's list moves the playhead to its time). A note on a short
 * lease quotes the TTL as the scenario's file writes it, or, beside a form
 * (the Sandbox), as `ttl` says the form shows it.
 */
export function VerdictView({ trace, primary = true, ttl }: { trace: LoadedTrace; primary?: boolean; ttl?: TtlWords }) {
  const verdict = trace.doc.verdict;
  const { findings } = trace.annotations;
  const report = summarize(verdict);
  const stopped = stopReason(runEndOf(trace.doc));
  const apart = keysApart(trace.doc.scenario.clients);
  const shortLeases = shortLeaseNotes(trace.doc.scenario, ttl);
  const go = (seq: number) => {
    const ui = useUi.getState();
    if (primary) ui.inspect(seq);
    else ui.seekTime(trace.model.times[seq] ?? 0);
  };
  return (
    <section className={`verdict verdict-${verdict.outcome}`} data-testid="verdict" data-outcome={verdict.outcome} aria-label="Verdict">
      <p className="verdict-headline">{HEADLINE[verdict.outcome]}</p>
      {stopped !== undefined && (
        <p className="notice small" role="status" data-testid="stopped-early">
          {stopped} This verdict covers the run up to there.
        </p>
      )}
      {!findings.some((f) => f.kind !== 'lock-out') && <p className="muted small">No double ownership and no stale write: mutual exclusion held.</p>}
      <p className="muted small" data-testid="lock-cycles">
        {lockCyclesLine(trace.model.lockCycles)}
      </p>
      {apart !== undefined && (
        <p className="notice small" data-testid="keys-apart">
          {apart}
        </p>
      )}
      {shortLeases.map((note) => (
        <p key={note} className="notice small" data-testid="short-lease">
          {note}
        </p>
      ))}
      {findings.length > 0 && (
        <ol className="findings" aria-label="Findings (n: next, Shift+N: previous)">
          {findings.map((f, i) => (
            <li key={f.id} className={`finding finding-${f.severity}`} data-finding={f.kind} data-seq={f.seq}>
              <button type="button" className="link-button" onClick={() => go(f.seq)}>
                <span className={`finding-number-chip finding-${f.severity}`} aria-label={`Finding ${i + 1}`}>
                  {i + 1}
                </span>{' '}
                <span className="finding-when mono">{formatInstant(f.atUs)}</span>{' '}
                <strong>
                  {SYMBOL[f.severity]} {f.title}:
                </strong>{' '}
                {f.detail}
              </button>
            </li>
          ))}
        </ol>
      )}
      {report.length > 0 && (
        <details className="small">
          <summary>The checker’s report</summary>
          <ul>
            {report.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
