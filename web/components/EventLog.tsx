import { describe, toneOf } from '../../sim/trace/describe.js';
import { formatInstant } from '../../sim/time.js';
import type { LoadedTrace } from '../state/traces.js';
import { useUi } from '../state/ui.js';

const BEFORE = 4;
const AFTER = 5;

/** A few events around the cursor, in words; a text alternative to the drawing, and a way to jump. */
export function EventLog({ trace }: { trace: LoadedTrace }) {
  const cursor = useUi((s) => s.cursor);
  const seekSeq = useUi((s) => s.seekSeq);
  const events = trace.doc.events;
  const from = Math.max(0, cursor - BEFORE);
  const to = Math.min(events.length, Math.max(cursor, 0) + AFTER + 1);
  const shown = events.slice(from, to);
  return (
    <section className="event-log" aria-label="Events around the playhead">
      <h2 className="panel-title">Events</h2>
      <ol start={from + 1}>
        {shown.map((e) => (
          <li key={e.seq} aria-current={e.seq === cursor ? 'step' : undefined} className={`tone-${toneOf(e)}${e.seq === cursor ? ' current' : ''}`}>
            <button type="button" className="link-button" onClick={() => seekSeq(e.seq)}>
              <span className="mono">{formatInstant(e.timeUs)}</span> <strong>{e.actor}</strong> {describe(e)}
            </button>
          </li>
        ))}
      </ol>
    </section>
  );
}
