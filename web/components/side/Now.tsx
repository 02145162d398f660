import { describe, toneOf } from '../../../sim/trace/describe.js';
import { formatInstant } from '../../../sim/time.js';
import type { LoadedTrace } from '../../state/traces.js';
import { usePanelHeading } from '../heading.js';
import { FlagLine } from './FlagLine.js';

/** The event at the playhead in words, flagged when the checker found something there. */
export function Now({ trace, cursor, playheadUs }: { trace: LoadedTrace; cursor: number; playheadUs: number }) {
  const { doc } = trace;
  const e = cursor >= 0 ? doc.events[cursor] : undefined;
  const H = usePanelHeading(2);
  const finding = e === undefined ? undefined : trace.annotations.findingAt.get(e.seq);
  return (
    <section className="now" aria-live="polite" data-testid="current-event">
      <H className="panel-title">
        {e === undefined ? 'Before the first event' : `Event ${e.seq + 1} of ${doc.events.length}`}{' '}
        <span className="muted">· true time {formatInstant(playheadUs)}</span>
      </H>
      {e !== undefined ? (
        <p className={`event-sentence tone-${toneOf(e)}`}>
          <strong>
            {e.actor}@{e.machine}
          </strong>{' '}
          {describe(e)}
          {e.localUs !== undefined && <span className="muted"> (its clock: {formatInstant(e.localUs)})</span>}
        </p>
      ) : (
        <p className="event-sentence">Press → to step to the first event, Space to play, or n to jump to the first finding.</p>
      )}
      {finding !== undefined && <FlagLine finding={finding} />}
    </section>
  );
}
