import { useState } from 'react';
import type { Scenario } from '../../sim/scenario/types.js';
import { formatDuration } from '../../sim/time.js';
import { NumField, SelectField } from './fields.js';
import { faultDurationMs, faultKindsFor, faultTemplate } from './templates.js';
import { ValueField } from './ValueField.js';

/** A guess at how long the scenario runs, so the strip's axis fits the faults and the clients' work. */
export function horizonMs(s: Scenario): number {
  const faults = s.faults.map((f) => f.atMs + faultDurationMs(f));
  const clients = s.clients.map((c) => c.startMs + Math.min(c.iterations, 5) * (c.workMs * Math.max(1, c.writes) + c.ttlMs * 0.5));
  return Math.max(1000, ...faults, ...clients) * 1.1;
}

/**
 * Faults placed on the time axis: each fault is a bar on a strip and a
 * slider for its time, beside its own settings. Settings are edited by
 * type, so store-specific faults added to sim/ later work here unchanged.
 */
export function FaultsEditor({ scenario, update }: { scenario: Scenario; update: (path: (string | number)[], v: unknown) => void }) {
  const kinds = faultKindsFor(scenario.store.kind);
  const [kind, setKind] = useState<string>('pause');
  const horizon = horizonMs(scenario);
  const clients = scenario.clients.map((c) => c.name);
  const machines = scenario.machines.map((m) => m.name);
  const choicesFor = (key: string): readonly string[] | undefined =>
    key === 'machine' ? machines : key === 'target' ? [...clients, String(scenario.store.name ?? '')].filter((n) => n !== '') : undefined;
  return (
    <fieldset className="card">
      <legend>Faults on the time axis</legend>
      <svg
        className="fault-strip"
        viewBox="0 0 1000 44"
        preserveAspectRatio="none"
        role="img"
        aria-label={`${scenario.faults.length} faults between 0 and ${formatDuration(horizon * 1000)}`}
      >
        <line className="tick" x1="0" x2="1000" y1="38" y2="38" />
        {scenario.faults.map((f, i) => (
          <rect
            key={i}
            data-fault-mark={f.kind}
            className="fault-strip-bar"
            x={(f.atMs / horizon) * 1000}
            y={6 + (i % 4) * 8}
            width={Math.max(4, (faultDurationMs(f) / horizon) * 1000)}
            height={7}
          />
        ))}
      </svg>
      <div className="strip-scale muted small" aria-hidden="true">
        <span>0 s</span>
        <span>{formatDuration(horizon * 1000)}</span>
      </div>
      {scenario.faults.map((f, i) => (
        <div className="fault-row" key={i} data-fault-row={i}>
          <div className="fields fields-row">
            <strong className="fault-kind">
              {i + 1}. {f.kind}
            </strong>
            <label className="field slider-field">
              <span>At (slide along the axis)</span>
              <input
                type="range"
                min={0}
                max={Math.round(horizon)}
                step={Math.max(1, Math.round(horizon / 500))}
                value={f.atMs}
                onChange={(ev) => update(['faults', i, 'atMs'], Number(ev.target.value))}
                aria-valuetext={formatDuration(f.atMs * 1000)}
              />
            </label>
            <NumField label="At (ms)" value={f.atMs} min={0} onChange={(v) => update(['faults', i, 'atMs'], v ?? 0)} />
            {Object.entries(f as unknown as Record<string, unknown>)
              .filter(([k]) => k !== 'kind' && k !== 'atMs')
              .map(([k, v]) => (
                <ValueField key={k} label={k} value={v} choices={choicesFor(k)} onChange={(nv) => update(['faults', i, k], nv)} />
              ))}
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
        <SelectField label="New fault" value={kind} options={kinds} onChange={setKind} />
        <button
          type="button"
          className="small-button"
          onClick={() => update(['faults'], [...scenario.faults, faultTemplate(kind, scenario, Math.round(horizon / 4))])}
        >
          Add fault
        </button>
      </div>
    </fieldset>
  );
}
