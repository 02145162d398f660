import { leaseLeftWords } from '../../model/belief-words.js';
import { clientViewAt, type ClientView } from '../../model/state-at.js';
import type { LoadedTrace } from '../../state/traces.js';

/** Whether a client's belief disagrees with the store: it believes, and the store holds nothing (or someone else's token) for it. */
export function disagrees(c: ClientView): boolean {
  const believes = c.belief?.holds === true;
  return believes && (c.truth === null || c.truth.label.split(' ')[0] !== c.belief?.owner);
}

export function clientViews(trace: LoadedTrace, cursor: number, playheadUs: number): ClientView[] {
  return trace.model.clients.map((c) => clientViewAt(trace.doc, trace.model, c, cursor, playheadUs));
}

/** For each client, what it believes (by its own clock) beside what the store holds for it. */
export function BeliefTable({ views }: { views: readonly ClientView[] }) {
  return (
    <table className="belief-table" data-testid="belief-table">
      <thead>
        <tr>
          <th scope="col">Client</th>
          <th scope="col">Believes (by its own clock)</th>
          <th scope="col">Store says</th>
        </tr>
      </thead>
      <tbody>
        {views.map((c) => {
          const believes = c.belief?.holds === true;
          const holds = c.truth !== null;
          const wrong = disagrees(c);
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
                    {c.ttlLeftUs !== null && <div className={c.ttlLeftUs < 0 ? 'ttl-out' : 'muted'}>{leaseLeftWords(c.ttlLeftUs)}</div>}
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
  );
}
