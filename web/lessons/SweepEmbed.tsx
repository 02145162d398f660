import { useMemo } from 'react';
import type { Sweep } from '../../sim/lessons/types.js';
import { grouped } from '../../sim/scenario/limits.js';
import { buildBuiltinLink, EMPTY_LINK } from '../links/permalink.js';
import { oddsLinkOf } from '../state/session.js';
import { sweepForm, sweepWords } from './sweep-words.js';

export const sweepAnchor = (id: string): string => `sweep-${id}`;

/**
 * A sweep the lesson points at: what it varies and how many runs it takes,
 * in words, and a link to the Odds view with its form filled in, the very
 * address the Odds view writes for that form. The sweep runs there, when
 * the learner starts it: thousands of runs would hold up the lesson's page.
 */
export function SweepEmbed({ sweep }: { sweep: Sweep }) {
  const words = useMemo(() => sweepWords(sweep), [sweep]);
  const href = useMemo(
    () => buildBuiltinLink({ ...EMPTY_LINK, view: 'odds', scenario: { builtin: sweep.scenario }, odds: oddsLinkOf(sweepForm(sweep)) }),
    [sweep],
  );
  const each = words.points === 1 ? '' : words.fields.length === 1 ? ' for each value' : ` for each of the ${grouped(words.points)} combinations`;
  return (
    <section className="embed sweep" id={sweepAnchor(sweep.id)} data-sweep={sweep.id}>
      <h3 className="embed-title">{sweep.title}</h3>
      <p>{sweep.caption}</p>
      <dl className="sweep-form" data-testid="sweep-form">
        <div>
          <dt>Scenario</dt>
          <dd>
            <code>{sweep.scenario}</code>
          </dd>
        </div>
        {words.fields.map((f, i) => (
          <div key={f.path}>
            <dt>{words.fields.length === 1 ? 'Varied' : `Varied (${i === 0 ? 'first' : 'second'})`}</dt>
            <dd>
              {f.label}: {f.values}
            </dd>
          </div>
        ))}
        <div>
          <dt>Runs</dt>
          <dd>
            {grouped(words.runs)}
            {each} (seeds 1 to {grouped(words.runs)}), {grouped(words.runs * words.points)} in all
          </dd>
        </div>
      </dl>
      <p className="sweep-actions">
        <a className="button-like sweep-open" href={href} data-testid={`open-sweep-${sweep.id}`}>
          Open this sweep in the Odds view
        </a>
        <span className="muted small">It fills in the form there; nothing runs until you press Run sweep.</span>
      </p>
    </section>
  );
}
