import { describe } from '../../../sim/trace/describe.js';
import { formatInstant } from '../../../sim/time.js';
import type { LoadedTrace } from '../../state/traces.js';
import { useUi } from '../../state/ui.js';
import { clientViews, disagrees } from './BeliefTable.js';

/**
 * The side panel's gist in one strip that stays at the bottom of the
 * window when the panel itself sits below the timeline (narrow windows):
 * the event at the playhead, and each client's belief beside the store's
 * truth. Shown by CSS only where the panel is not beside the timeline.
 */
export function Summary({ trace }: { trace: LoadedTrace }) {
  const cursor = useUi((s) => s.cursor);
  const playheadUs = useUi((s) => s.playheadUs);
  const e = cursor >= 0 ? trace.doc.events[cursor] : undefined;
  const finding = e === undefined ? undefined : trace.annotations.findingAt.get(e.seq);
  return (
    <div className="sticky-summary" data-testid="sticky-summary" aria-hidden="true">
      <div className="summary-event">
        <span className="mono">{formatInstant(playheadUs)}</span>{' '}
        {e === undefined ? (
          'before the first event'
        ) : (
          <>
            <strong>{e.actor}</strong> {describe(e)}
          </>
        )}
        {finding !== undefined && <span className={`flag flag-${finding.severity}`}> · {finding.title}</span>}
      </div>
      <ul className="summary-clients">
        {clientViews(trace, cursor, playheadUs).map((c) => (
          <li key={c.name} data-client={c.name} className={disagrees(c) ? 'row-wrong' : ''}>
            <strong>{c.name}</strong> believes {c.belief?.holds === true ? `● ${c.belief.owner ?? ''}` : '○ nothing'} · store{' '}
            {c.truth === null ? '□ nothing' : `■ ${c.truth.label}`}
            {disagrees(c) && ' ⚠'}
          </li>
        ))}
      </ul>
    </div>
  );
}
