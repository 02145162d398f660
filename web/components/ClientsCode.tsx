import { useMemo, useState } from 'react';
import { clientPhp, codeNote } from '../../sim/scenario/steps-php.js';
import type { Scenario } from '../../sim/scenario/types.js';

/**
 * What each client of the run does, as the PHP its steps (or lifecycle
 * settings) stand for: the code behind the timeline, folded away until asked
 * for, and written only then.
 */
export function ClientsCode({ scenario }: { scenario: Scenario }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="card clients-code" data-testid="clients-code" onToggle={(ev) => setOpen(ev.currentTarget.open)}>
      <summary>What the clients run, as PHP</summary>
      {open && <Code scenario={scenario} />}
    </details>
  );
}

function Code({ scenario }: { scenario: Scenario }) {
  const note = codeNote(scenario);
  const code = useMemo(() => scenario.clients.map((c) => ({ name: c.name, machine: c.machine, php: clientPhp(scenario, c) })), [scenario]);
  return (
    <>
      <p className="muted small">
        Symfony Lock&rsquo;s calls, with <code>work()</code> for the time in the critical section and <code>write()</code> for the write to the resource.
        {note !== null && ` ${note}`}
      </p>
      <div className="clients-code-grid">
        {code.map((c) => (
          <section key={c.name} aria-label={`${c.name}'s code`}>
            <h3>
              {c.name} <span className="muted">on {c.machine}</span>
            </h3>
            <pre className="mono">
              <code>{c.php}</code>
            </pre>
          </section>
        ))}
      </div>
    </>
  );
}
