import { formatCyclesShort, formatShare, type ComboReport, type SweepReport } from '../../sim/odds/report.js';
import { showParam } from './params.js';

/** The most points the table lists; the CSV has them all. */
export const TABLE_ROWS = 100;

/** What the table gives of each point, as the command line's report names it: shares of runs, and beside double ownership the share of lock cycles. */
const COLUMNS: ReadonlyArray<{ readonly label: string; readonly cell: (c: ComboReport) => string }> = [
  { label: 'double ownership', cell: (c) => formatShare(c.doubleOwnership) },
  { label: 'double-owned lock cycles (of all cycles)', cell: (c) => formatCyclesShort(c.doubleOwnedCycles) },
  { label: 'stale write accepted', cell: (c) => formatShare(c.unsafe) },
  { label: 'fenced (stale writes refused)', cell: (c) => formatShare(c.fenced) },
  { label: 'lost a lock', cell: (c) => formatShare(c.lostLock) },
];

/**
 * Every point of a sweep as figures, beside the plot: the answer to "how
 * often?" read without hovering, as `locklab sweep` prints it. A row's
 * value selects its point, for its failing runs.
 */
export function OddsTable(props: { report: SweepReport; labels: ReadonlyMap<string, string>; selected: number | null; onSelect: (index: number) => void }) {
  const { report, labels, selected, onSelect } = props;
  const paths = report.vary.map((v) => v.path);
  const rows = report.combinations.slice(0, TABLE_ROWS);
  return (
    <div className="odds-figures">
      <h2 id="odds-table-title">Share of runs at each point (of lock cycles where said), with its 95 % interval</h2>
      {/* On a narrow screen the table scrolls sideways on its own, never the page. */}
      <div className="odds-table-wrap" role="region" aria-labelledby="odds-table-title" tabIndex={0}>
        <table className="odds-table" data-testid="odds-table" aria-labelledby="odds-table-title">
          <thead>
            <tr>
              {paths.map((p) => (
                <th key={p} scope="col">
                  {labels.get(p) ?? p}
                </th>
              ))}
              <th scope="col" className="num">
                runs
              </th>
              {COLUMNS.map((c) => (
                <th key={c.label} scope="col" className="num">
                  {c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((c, i) => (
              <tr key={i} className={i === selected ? 'selected' : undefined}>
                {paths.map((p, j) =>
                  j === 0 ? (
                    <th key={p} scope="row">
                      <button type="button" className="small-button" aria-pressed={i === selected} onClick={() => onSelect(i)}>
                        {showParam(c.params[p])}
                      </button>
                    </th>
                  ) : (
                    <td key={p}>{showParam(c.params[p])}</td>
                  ),
                )}
                <td className="num mono">{c.runs.toLocaleString('en-US')}</td>
                {COLUMNS.map((col) => (
                  <td key={col.label} className="num mono">
                    {col.cell(c)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {report.combinations.length > TABLE_ROWS && (
        <p className="muted small">
          The first {TABLE_ROWS} of {report.combinations.length.toLocaleString('en-US')} points; Download CSV has them all.
        </p>
      )}
    </div>
  );
}
