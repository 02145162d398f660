import { PageHeading } from '../components/PageHeading.js';
import { STORE_TABLE } from '../../sim/stores/registry.js';
import { buildLinkSync } from './store-links.js';

const yesNo = (v: boolean) => (v ? '✓ yes' : '✕ no');

/** A hazard scenario and the settings that put it on this store: "zookeeper-session-expiry, with store.kind = zookeeper-recipe". */
export function hazardWords(scenario: string, sets: readonly string[]): string {
  if (sets.length === 0) return scenario;
  return `${scenario}, with ${sets.map((o) => o.replace('=', ' = ')).join(' and ')}`;
}

/** The capability table of every store the simulator models, each row linking to the scenario that shows its hazard. */
export function StoresView() {
  return (
    <section className="stores">
      <PageHeading text="Stores" />
      <p>What each lock store can do, as the simulator models it. Follow a hazard link to watch the store fail.</p>
      <div className="table-scroll">
        <table className="stores-table" data-testid="stores-table">
          <thead>
            <tr>
              <th scope="col">Store</th>
              <th scope="col">Scope</th>
              <th scope="col">Expiring</th>
              <th scope="col">Blocking</th>
              <th scope="col">Sharing</th>
              <th scope="col">Fencing token</th>
              <th scope="col">Loses the lock when</th>
              <th scope="col">Hazard</th>
            </tr>
          </thead>
          <tbody>
            {STORE_TABLE.map((row) => (
              <tr key={row.name} data-store-row={row.name}>
                <th scope="row">{row.title}</th>
                <td data-label="Scope">{row.scope}</td>
                <td data-label="Expiring">{yesNo(row.expiring)}</td>
                <td data-label="Blocking">{yesNo(row.blocking)}</td>
                <td data-label="Sharing">{yesNo(row.sharing)}</td>
                <td data-label="Fencing token">{row.fencingToken ?? '✕ none'}</td>
                <td data-label="Loses the lock when">
                  <ul className="plain">
                    {row.losesLockWhen.map((w) => (
                      <li key={w}>{w}</li>
                    ))}
                  </ul>
                </td>
                <td data-label="Hazard">
                  <a href={buildLinkSync(row.hazardScenario, row.hazardSets)}>{hazardWords(row.hazardScenario, row.hazardSets)}</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
