import { useState } from 'react';
import type { Scenario } from '../../sim/scenario/types.js';
import type { LoadedTrace } from '../state/traces.js';
import { FaultFields } from './FaultFields.js';
import { FaultStrip } from './FaultStrip.js';
import { SelectField } from './fields.js';
import { placeFault } from './place.js';
import { faultDurationMs, faultKindsFor } from './templates.js';
import { faultDescription, faultName } from './words.js';

/** How long the strip's axis runs: the last run's length, or a guess from the faults and the clients' work. */
export function horizonMs(s: Scenario, trace: LoadedTrace | null = null): number {
  const faults = s.faults.map((f) => f.atMs + faultDurationMs(f));
  const clients = s.clients.map((c) => c.startMs + Math.min(c.iterations, 5) * (c.workMs * Math.max(1, c.writes) + c.ttlMs * 0.5));
  const ran = trace === null ? 0 : trace.model.endUs / 1000;
  return Math.ceil(Math.max(1000, ran, ...faults, ...clients) * 1.1);
}

/**
 * Faults placed on the time axis: a marker per fault to drag along it, and
 * below, each fault's settings in words. A new fault is put where it
 * matters (while the first client holds the lock) and says so. Only the
 * faults the scenario's store understands are offered.
 */
export function FaultsEditor({
  scenario,
  update,
  trace,
}: {
  scenario: Scenario;
  update: (path: (string | number)[], v: unknown) => void;
  /** The last run of this scenario, to draw when clients held the lock and to place new faults in it. */
  trace: LoadedTrace | null;
}) {
  const kinds = faultKindsFor(scenario.store);
  const [kind, setKind] = useState<string>('pause');
  const [placed, setPlaced] = useState('');
  const horizon = horizonMs(scenario, trace);
  return (
    <fieldset className="card">
      <legend>Faults on the time axis</legend>
      <FaultStrip scenario={scenario} horizonMs={horizon} trace={trace} moveTo={(i, atMs) => update(['faults', i, 'atMs'], atMs)} />
      {scenario.faults.map((f, i) => (
        <div className="fault-row" key={i} data-fault-row={i}>
          <p className="fault-kind">
            <strong>
              {i + 1}. {faultName(f.kind)}
            </strong>{' '}
            <span className="muted small">{faultDescription(f.kind)}</span>
          </p>
          <div className="fields fields-row">
            <FaultFields fault={f} scenario={scenario} set={(field, v) => update(['faults', i, field], v)} path={['faults', i]} />
            <button
              type="button"
              className="small-button"
              onClick={() =>
                update(
                  ['faults'],
                  scenario.faults.filter((_, k) => k !== i),
                )
              }
            >
              Remove fault {i + 1}
            </button>
          </div>
        </div>
      ))}
      <div className="fields fields-row">
        <SelectField label="New fault" value={kinds.includes(kind) ? kind : 'pause'} options={kinds} labelOf={faultName} onChange={setKind} />
        <button
          type="button"
          className="small-button"
          onClick={() => {
            const p = placeFault(kinds.includes(kind) ? kind : 'pause', scenario, trace);
            update(['faults'], [...scenario.faults, p.fault]);
            setPlaced(p.why);
          }}
        >
          Add fault
        </button>
      </div>
      {/* Always there, empty until a fault is added: a live region that appears with its words already in it is not read out. */}
      <p className="muted small fault-placed" role="status" data-testid="fault-placed">
        {placed}
      </p>
    </fieldset>
  );
}
