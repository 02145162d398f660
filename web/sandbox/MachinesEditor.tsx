import type { Scenario } from '../../sim/scenario/types.js';
import { NumField, TextField } from './fields.js';

/** Machines and their clocks: how far each reads from true time at the start, and how fast it drifts. */
export function MachinesEditor({ scenario, update }: { scenario: Scenario; update: (path: (string | number)[], v: unknown) => void }) {
  return (
    <fieldset className="card">
      <legend>Machines and clocks</legend>
      {scenario.machines.map((m, i) => (
        <div className="fields fields-row" key={i} data-machine-row={m.name}>
          <TextField label="Name" value={m.name} onChange={(v) => update(['machines', i, 'name'], v)} />
          <NumField label="Clock offset (ms)" value={m.clockOffsetMs} onChange={(v) => update(['machines', i, 'clockOffsetMs'], v)} />
          <NumField label="Clock drift (ppm)" value={m.clockDriftPpm} onChange={(v) => update(['machines', i, 'clockDriftPpm'], v)} />
          <button
            type="button"
            className="small-button"
            disabled={scenario.machines.length <= 1}
            onClick={() =>
              update(
                ['machines'],
                scenario.machines.filter((_, k) => k !== i),
              )
            }
          >
            Remove {m.name}
          </button>
        </div>
      ))}
      <button
        type="button"
        className="small-button"
        onClick={() => update(['machines'], [...scenario.machines, { name: `app${scenario.machines.length + 1}`, clockOffsetMs: 0, clockDriftPpm: 0 }])}
      >
        Add a machine
      </button>
    </fieldset>
  );
}
