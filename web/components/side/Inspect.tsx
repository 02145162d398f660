import { describe } from '../../../sim/trace/describe.js';
import type { TraceEvent } from '../../../sim/trace/types.js';
import { formatInstant } from '../../../sim/time.js';
import { beliefWords } from '../../model/belief-words.js';
import { clientViewAt, spanAt, spansAt } from '../../model/state-at.js';
import type { Span } from '../../model/types.js';
import type { LoadedTrace } from '../../state/traces.js';
import { useUi } from '../../state/ui.js';
import { usePanelHeading } from '../heading.js';
import { FlagLine } from './FlagLine.js';

/** The client an event is about: its actor, the client it answers, or the owner of the lock it concerns. */
function clientOf(trace: LoadedTrace, e: TraceEvent): string | null {
  const names = new Set(trace.model.clients.map((c) => c.name));
  if (names.has(e.actor)) return e.actor;
  if (e.peer !== undefined && names.has(e.peer)) return e.peer;
  const owner = e.owner?.slice(0, e.owner.lastIndexOf(':'));
  return owner !== undefined && names.has(owner) ? owner : null;
}

/** The events of one message (request, handling, reply): a scan, done only when someone inspects an event. */
function eventsOfMessage(events: readonly TraceEvent[], msg: number): number[] {
  const out: number[] = [];
  for (const e of events) if (e.msg === msg) out.push(e.seq);
  return out;
}

/** The last holding that began at or before an instant, to say how the store's lease had ended. */
function lastStarted(spans: readonly Span[], atUs: number): Span | null {
  let found: Span | null = null;
  for (const s of spans) if (s.fromUs <= atUs) found = s;
  return found;
}

/**
 * Closes the details. The Close button goes with them, so the focus goes
 * back to the event's line in the event log, from which Enter opened them
 * (or to the main area if that line is not shown), rather than to the
 * page's body, where Tab would start again from the top.
 */
function close(seq: number): void {
  useUi.getState().set({ selected: null });
  const row = document.querySelector<HTMLElement>(`.event-log li[data-seq="${seq}"] button`);
  (row ?? document.getElementById('main'))?.focus();
}

/**
 * The details of one event, as a trace viewer shows a selected slice: what
 * happened, what the client it concerns believed then, what the store held
 * for it, and the other events of the same message (request, handling,
 * reply), each a link to inspect in turn.
 */
export function Inspect({ trace, seq, atCursor }: { trace: LoadedTrace; seq: number; atCursor: boolean }) {
  const { doc, model, annotations } = trace;
  const e = doc.events[seq];
  const H = usePanelHeading(2);
  const ui = useUi.getState();
  if (e === undefined) return null;
  const finding = annotations.findingAt.get(seq);
  const client = clientOf(trace, e);
  const lane = client === null ? undefined : model.clients.find((c) => c.name === client);
  const view = lane === undefined ? null : clientViewAt(doc, model, lane, seq, e.timeUs);
  const holding = lane === undefined ? null : spanAt(lane.truth, e.timeUs);
  const ended = lane === undefined || holding !== null ? null : lastStarted(lane.truth, e.timeUs);
  const message = e.msg === undefined ? [] : eventsOfMessage(doc.events, e.msg).filter((s) => s !== seq);
  const store = model.stores.find((s) => s.name === e.actor);
  return (
    <section className="inspect" data-testid="inspector" aria-label={`Details of event ${seq + 1}`}>
      <div className="inspect-head">
        <H className="panel-title">
          {atCursor ? 'Details' : `Event ${seq + 1}`} <span className="muted mono">{e.kind}</span>
        </H>
        <button type="button" className="small-button" onClick={() => close(seq)}>
          Close
        </button>
      </div>
      {/* At the playhead, the event's sentence and flag are just above; elsewhere they are repeated here. */}
      {!atCursor && (
        <p className="event-sentence">
          <strong>
            {e.actor}@{e.machine}
          </strong>{' '}
          {describe(e)} <span className="muted">at {formatInstant(e.timeUs)}</span>
          {e.localUs !== undefined && e.localUs !== e.timeUs && <span className="muted"> (its clock: {formatInstant(e.localUs)})</span>}
        </p>
      )}
      {!atCursor && finding !== undefined && <FlagLine finding={finding} />}
      <dl className="inspect-facts">
        {view !== null && (
          <>
            <dt>What {client} believes</dt>
            <dd data-testid="inspect-belief">{beliefWords(view)}</dd>
            <dt>What the store says</dt>
            <dd data-testid="inspect-truth">
              {holding !== null
                ? `holds ${holding.label} for ${client}, since ${formatInstant(holding.fromUs)}`
                : ended !== null
                  ? `nothing for ${client}: ${ended.label} ended at ${formatInstant(ended.toUs)} (${ended.end})`
                  : `nothing for ${client}`}
            </dd>
          </>
        )}
        {store !== undefined && (
          <>
            <dt>{store.name} then</dt>
            <dd>
              {spansAt(store.holds, e.timeUs)
                .map((h) => `holds ${h.label}`)
                .join(', ') || 'holds no key'}
            </dd>
          </>
        )}
        {message.length > 0 && (
          <>
            <dt>Message #{e.msg}</dt>
            <dd>
              <ul className="plain" data-testid="inspect-message">
                {message.map((s) => {
                  const m = doc.events[s]!;
                  return (
                    <li key={s}>
                      <button type="button" className="link-button" onClick={() => ui.inspect(s)}>
                        <span className="mono">{formatInstant(m.timeUs)}</span> <strong>{m.actor}</strong> {describe(m)}
                      </button>
                    </li>
                  );
                })}
              </ul>
            </dd>
          </>
        )}
      </dl>
    </section>
  );
}
