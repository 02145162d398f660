import { useDeferredValue, useId, useMemo, useState } from 'react';
import { describe, toneOf } from '../../sim/trace/describe.js';
import type { TraceEvent } from '../../sim/trace/types.js';
import { formatInstant } from '../../sim/time.js';
import type { LoadedTrace } from '../state/traces.js';
import { useMedia } from '../state/useMedia.js';
import { useUi } from '../state/ui.js';
import { FlagLine } from './side/FlagLine.js';

const BEFORE = 4;
const AFTER = 5;
/** Search shows this many matches; the count says how many there are in all. */
const SHOWN = 60;

/** The events whose words (time, actor, machine, kind, sentence, finding) contain every word of the query. */
export function searchEvents(trace: LoadedTrace, query: string): { seqs: number[]; total: number } {
  const words = query
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '');
  if (words.length === 0) return { seqs: [], total: 0 };
  const seqs: number[] = [];
  let total = 0;
  for (const e of trace.doc.events) {
    const finding = trace.annotations.findingAt.get(e.seq);
    const text =
      `${formatInstant(e.timeUs)} ${e.actor} ${e.machine} ${e.kind} ${e.owner ?? ''} ${describe(e)} ${finding === undefined ? '' : `${finding.title} ${finding.sentence}`}`.toLowerCase();
    if (words.every((w) => text.includes(w))) {
      total++;
      if (seqs.length < SHOWN) seqs.push(e.seq);
    }
  }
  return { seqs, total };
}

function Row({ trace, e, current }: { trace: LoadedTrace; e: TraceEvent; current: boolean }) {
  const finding = trace.annotations.findingAt.get(e.seq);
  return (
    <li
      aria-current={current ? 'step' : undefined}
      data-seq={e.seq}
      className={`tone-${toneOf(e)}${current ? ' current' : ''}${finding === undefined ? '' : ` flagged flagged-${finding.severity}`}`}
    >
      <button type="button" className="link-button" onClick={() => useUi.getState().inspect(e.seq)}>
        <span className="mono">{formatInstant(e.timeUs)}</span> <strong>{e.actor}</strong> {describe(e)}
        {finding !== undefined && (
          <>
            {' '}
            <FlagLine finding={finding} compact />
          </>
        )}
      </button>
    </li>
  );
}

/**
 * A few events around the cursor, in words: a text alternative to the
 * drawing and a way to jump. A search lists every event that matches
 * instead, and choosing one inspects it.
 */
export function EventLog({ trace }: { trace: LoadedTrace }) {
  const cursor = useUi((s) => s.cursor);
  const [query, setQuery] = useState('');
  const deferred = useDeferredValue(query);
  const id = useId();
  // On a phone the box is narrower than the full example, which would be cut mid-word.
  const phone = useMedia('(max-width: 640px)');
  const found = useMemo(() => searchEvents(trace, deferred), [trace, deferred]);
  const events = trace.doc.events;
  const searching = deferred.trim() !== '';
  const from = Math.max(0, cursor - BEFORE);
  const to = Math.min(events.length, Math.max(cursor, 0) + AFTER + 1);
  return (
    <section className="event-log" aria-label="Events">
      <div className="event-log-head">
        <h2 className="panel-title">Events</h2>
        <label htmlFor={id} className="sr-only">
          Search the events
        </label>
        <input
          id={id}
          type="search"
          className="event-search"
          placeholder={phone ? 'Search: B denied, token 33…' : 'Search events: B denied, token 33, expired…'}
          value={query}
          onChange={(ev) => setQuery(ev.target.value)}
          data-testid="event-search"
        />
        {/* Always there, empty until a search: a live region that appears with its words already in it is not read out. */}
        <span className="muted small" role="status" data-testid="event-search-count">
          {searching && (found.total === 0 ? 'no event matches' : `${found.total} event${found.total === 1 ? '' : 's'} match${found.total === 1 ? 'es' : ''}`)}
          {searching && found.total > found.seqs.length && `, the first ${found.seqs.length} shown`}
        </span>
      </div>
      {searching ? (
        <ol className="search-results">
          {found.seqs.map((s) => (
            <Row key={s} trace={trace} e={events[s]!} current={s === cursor} />
          ))}
        </ol>
      ) : (
        <ol start={from + 1}>
          {events.slice(from, to).map((e) => (
            <Row key={e.seq} trace={trace} e={e} current={e.seq === cursor} />
          ))}
        </ol>
      )}
    </section>
  );
}
