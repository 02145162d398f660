import type { LatencyDistribution, Scenario } from '../../sim/scenario/types.js';
import { STORE_TABLE } from '../../sim/stores/registry.js';
import { CheckField, NumField, SelectField } from './fields.js';
import { ValueField } from './ValueField.js';
import { storeFieldLabel, storeFieldSchema, valueLabel } from './words.js';

const LATENCY_DISTRIBUTIONS: readonly LatencyDistribution[] = ['uniform', 'normal', 'long-tail'];

/**
 * The store, the resource and the network. The store's own settings are
 * whatever its model defines (read from the normalized scenario), so a new
 * store kind in sim/ gets its form without changes here.
 */
export function StoreEditor({
  scenario,
  update,
  changeKind,
}: {
  scenario: Scenario;
  update: (path: (string | number)[], v: unknown) => void;
  changeKind: (kind: string) => void;
}) {
  const machines = scenario.machines.map((m) => m.name);
  const kinds = STORE_TABLE.map((r) => r.name);
  const store = scenario.store as unknown as Record<string, unknown>;
  return (
    <fieldset className="card">
      <legend>Store, resource and network</legend>
      <div className="fields">
        <SelectField
          label="Store"
          value={scenario.store.kind}
          options={kinds.includes(scenario.store.kind) ? kinds : [scenario.store.kind, ...kinds]}
          labelOf={(k) => STORE_TABLE.find((r) => r.name === k)?.title ?? k}
          onChange={changeKind}
        />
        {Object.entries(store)
          .filter(([k]) => k !== 'kind')
          .map(([k, v]) => {
            const schema = storeFieldSchema(scenario.store.kind, k);
            const closed = schema.enum?.filter((e): e is string => typeof e === 'string');
            return (
              <ValueField
                key={k}
                label={storeFieldLabel(k)}
                value={v}
                choices={k === 'machine' ? machines : closed}
                labelOf={(value) => valueLabel(k, value)}
                hint={schema.description}
                onChange={(nv) => update(['store', k], nv)}
                path={['store', k]}
              />
            );
          })}
        <SelectField
          label="Resource machine"
          value={scenario.resource.machine}
          options={machines.includes(scenario.resource.machine) ? machines : [scenario.resource.machine, ...machines]}
          onChange={(v) => update(['resource', 'machine'], v)}
        />
        <CheckField label="Fencing: the resource rejects lower tokens" value={scenario.resource.fencing} onChange={(v) => update(['resource', 'fencing'], v)} />
        <NumField label="Latency min (ms)" value={scenario.network.latencyMinMs} min={0} onChange={(v) => update(['network', 'latencyMinMs'], v)} />
        <NumField label="Latency max (ms)" value={scenario.network.latencyMaxMs} min={0} onChange={(v) => update(['network', 'latencyMaxMs'], v)} />
        <SelectField
          label="Latency distribution"
          value={scenario.network.distribution}
          options={LATENCY_DISTRIBUTIONS}
          onChange={(v) => update(['network', 'distribution'], v)}
        />
        <NumField label="Message loss (0–1)" value={scenario.network.loss} min={0} onChange={(v) => update(['network', 'loss'], v)} />
      </div>
    </fieldset>
  );
}
