import { describe, describeBelief, toneOf } from '../../sim/trace/describe.js';
import { formatDuration, formatInstant } from '../../sim/time.js';
import { countAtOrBefore } from '../model/search.js';
import { clientViewAt, localAt, spansAt } from '../model/state-at.js';
import type { Write } from '../model/types.js';
import type { LoadedTrace } from '../state/traces.js';
import { useUi } from '../state/ui.js';

/** How many writes (sorted by sequence number) happened at or before an event. */
function writesUpTo(writes: readonly Write[], seq: number): number {
  let lo = 0;
  let hi = writes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (writes[mid]!.seq <= seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * At the playhead: the current event in words, then, for each client, what
 * it believes beside what the store holds for it, then every machine's own
 * clock beside true time.
 */
export function SidePanel({ trace, primary = true }: { trace: LoadedTrace; primary?: boolean }) {
  const cursorPrimary = useUi((s) => s.cursor);
  const playheadUs = useUi((s) => s.playheadUs);
  const { doc, model } = trace;
  const cursor = primary ? cursorPrimary : countAtOrBefore(model.times, playheadUs) - 1;
  const e = cursor >= 0 ? doc.events[cursor] : undefined;
  const clients = model.clients.map((c) => clientViewAt(doc, model, c, cursor, playheadUs));
  const writeCount = writesUpTo(model.resource.writes, cursor);
  let lastAccepted: Write | undefined;
  // Walk back from the cursor to the latest accepted write; rejected ones are rare, so this is short.
  for (let i = writeCount - 1; i >= 0 && lastAccepted === undefined; i--) if (model.resource.writes[i]!.accepted) lastAccepted = model.resource.writes[i];

  return (
    <aside className="side-panel" aria-label={primary ? 'At the playhead' : `At the playhead in ${trace.label}`}>
      <section className="now" aria-live="polite" data-testid="current-event">
        <h2 className="panel-title">
          {e === undefined ? 'Before the first event' : `Event ${e.seq + 1} of ${doc.events.length}`}{' '}
          <span className="muted">· true time {formatInstant(playheadUs)}</span>
        </h2>
        {e !== undefined ? (
          <p className={`event-sentence tone-${toneOf(e)}`}>
            <strong>
              {e.actor}@{e.machine}
            </strong>{' '}
            {describe(e)}
            {e.localUs !== undefined && <span className="muted"> (its clock: {formatInstant(e.localUs)})</span>}
          </p>
        ) : (
          <p className="event-sentence">Press → to step to the first event, or Space to play.</p>
        )}
      </section>

      <section>
        <h2 className="panel-title">Belief beside truth</h2>
        <table className="belief-table" data-testid="belief-table">
          <thead>
            <tr>
              <th scope="col">Client</th>
              <th scope="col">Believes (by its own clock)</th>
              <th scope="col">Store says</th>
            </tr>
          </thead>
          <tbody>
            {clients.map((c) => {
              const believes = c.belief?.holds === true;
              const holds = c.truth !== null;
              const wrong = believes && (!holds || c.truth?.label.split(' ')[0] !== c.belief?.owner);
              return (
                <tr key={c.name} data-client={c.name} data-believes={believes} data-holds={holds} className={wrong ? 'row-wrong' : ''}>
                  <th scope="row">
                    {c.name}
                    {c.paused && <span className="chip chip-pause"> (paused)</span>}
                  </th>
                  <td>
                    {believes ? (
                      <>
                        <span className="yes">● holds</span> {c.belief?.owner}
                        {c.belief?.fence !== undefined && <> · token {c.belief.fence}</>}
                        {c.ttlLeftUs !== null && (
                          <div className={c.ttlLeftUs < 0 ? 'ttl-out' : 'muted'}>
                            {c.ttlLeftUs >= 0 ? `${formatDuration(c.ttlLeftUs)} left` : `ran out ${formatDuration(-c.ttlLeftUs)} ago`}
                          </div>
                        )}
                      </>
                    ) : (
                      <span className="no">○ holds nothing</span>
                    )}
                  </td>
                  <td>
                    {holds ? (
                      <>
                        <span className="yes">■ holds</span> {c.truth?.label}
                      </>
                    ) : (
                      <span className="no">□ nothing</span>
                    )}
                    {wrong && <div className="warn">⚠ believes, but the store disagrees</div>}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </section>

      <section>
        <h2 className="panel-title">Store and resource</h2>
        <ul className="facts">
          {trace.annotations.storeOrder
            .map((name) => model.stores.find((s) => s.name === name)!)
            .map((s) => {
              const down = spansAt(s.downs, playheadUs).length > 0;
              const holds = spansAt(s.holds, playheadUs);
              return (
                <li key={s.name} data-store={s.name}>
                  <strong>{s.name}</strong>: {down ? 'DOWN' : holds.length === 0 ? 'no key held' : holds.map((h) => `holds ${h.label}`).join(', ')}
                </li>
              );
            })}
          <li data-testid="resource-state">
            <strong>resource</strong>: {writeCount} write{writeCount === 1 ? '' : 's'} so far
            {lastAccepted !== undefined && `, last accepted from ${lastAccepted.label}`}
            {doc.scenario.resource.fencing ? ' · fencing on' : ' · fencing off'}
          </li>
        </ul>
      </section>

      <section>
        <h2 className="panel-title">Clocks</h2>
        <table className="clock-table">
          <thead>
            <tr>
              <th scope="col">Machine</th>
              <th scope="col">Its clock</th>
              <th scope="col">vs true time</th>
            </tr>
          </thead>
          <tbody>
            {model.machines.map((m) => {
              const spec = doc.scenario.machines.find((s) => s.name === m.name);
              const local = localAt(m, playheadUs, (spec?.clockOffsetMs ?? 0) * 1000);
              const skew = local - playheadUs;
              return (
                <tr key={m.name} data-machine={m.name}>
                  <th scope="row">{m.name}</th>
                  <td>{formatInstant(local)}</td>
                  <td>{skew === 0 ? 'in step' : `${skew > 0 ? '+' : '−'}${formatDuration(Math.abs(skew))}`}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </section>
      {e?.believes !== undefined && <p className="muted small">{`${e.actor}: ${describeBelief(e)}`}</p>}
    </aside>
  );
}
