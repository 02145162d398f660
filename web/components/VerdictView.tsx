import { summarize } from '../../sim/check/summary.js';
import type { Verdict } from '../../sim/check/verdict.js';

const HEADLINE: Readonly<Record<Verdict['outcome'], string>> = {
  unsafe: '✕ Unsafe: a stale write was accepted and the resource is corrupted',
  fenced: '◆ Fenced: locks overlapped, but fencing rejected every stale write',
  safe: '✓ Safe: no double ownership, no stale write',
};

/** The checker's verdict in words: the outcome, with a symbol as well as a colour, and one line per finding. */
export function VerdictView({ verdict }: { verdict: Verdict }) {
  return (
    <section className={`verdict verdict-${verdict.outcome}`} data-testid="verdict" data-outcome={verdict.outcome} aria-label="Verdict">
      <p className="verdict-headline">{HEADLINE[verdict.outcome]}</p>
      {summarize(verdict).length > 0 && (
        <ul>
          {summarize(verdict).map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
    </section>
  );
}
