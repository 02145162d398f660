import type { FaultSpec, Scenario } from '../../sim/scenario/types.js';
import { CheckField, NumField, SelectField } from './fields.js';
import { storeNodes } from './place.js';
import { ValueField } from './ValueField.js';
import { faultFieldLabel } from './words.js';

/** Fault kinds whose target is a client process; the others aim at a store node. */
const CLIENT_TARGETS = new Set(['pause', 'crash', 'session-expiry', 'connection-loss']);

function Checks({ label, all, chosen, onChange }: { label: string; all: readonly string[]; chosen: readonly string[]; onChange: (v: string[]) => void }) {
  return (
    <fieldset className="field field-checks">
      <legend>{label}</legend>
      {all.map((name) => (
        <CheckField
          key={name}
          label={name}
          value={chosen.includes(name)}
          onChange={(on) => onChange(on ? [...chosen.filter((n) => n !== name), name] : chosen.filter((n) => n !== name))}
        />
      ))}
    </fieldset>
  );
}

/**
 * A fault's settings in words, with the closed sets offered as choices: the
 * client or store node it is aimed at, the machines a partition cuts off,
 * the machines a latency spike slows, the clients a deploy switches.
 */
export function FaultFields({
  fault,
  scenario,
  set,
  path,
}: {
  fault: FaultSpec;
  scenario: Scenario;
  set: (field: string, v: unknown) => void;
  /** Where the fault is in the Sandbox's draft, for the JSON typed in its fields (see JsonField). */
  path?: readonly (string | number)[];
}) {
  const clients = scenario.clients.map((c) => c.name);
  const machines = scenario.machines.map((m) => m.name);
  const fields = Object.entries(fault as unknown as Record<string, unknown>).filter(([k]) => k !== 'kind' && k !== 'atMs');
  return (
    <>
      <NumField label={faultFieldLabel('atMs')} value={fault.atMs} min={0} onChange={(v) => set('atMs', v ?? 0)} />
      {fields.map(([k, v]) => {
        const label = faultFieldLabel(k);
        if (k === 'target') {
          const choices = CLIENT_TARGETS.has(fault.kind) ? clients : storeNodes(scenario);
          return (
            <SelectField
              key={k}
              label={label}
              value={String(v)}
              options={choices.includes(String(v)) ? choices : [String(v), ...choices]}
              onChange={(nv) => set(k, nv)}
            />
          );
        }
        if (k === 'machine')
          return (
            <SelectField
              key={k}
              label={label}
              value={String(v)}
              options={machines.includes(String(v)) ? machines : [String(v), ...machines]}
              onChange={(nv) => set(k, nv)}
            />
          );
        if (k === 'groups' && Array.isArray(v) && v.length === 2) {
          // Two groups: the machines cut off, and the rest.
          const cut = (v[0] as string[]) ?? [];
          return <Checks key={k} label={label} all={machines} chosen={cut} onChange={(c) => set(k, [c, machines.filter((m) => !c.includes(m))])} />;
        }
        if (k === 'machines') {
          const chosen = Array.isArray(v) ? (v as string[]) : [];
          return <Checks key={k} label={`${label} (none ticked: all)`} all={machines} chosen={chosen} onChange={(c) => set(k, c.length === 0 ? null : c)} />;
        }
        if (k === 'clients') return <Checks key={k} label={label} all={clients} chosen={Array.isArray(v) ? (v as string[]) : []} onChange={(c) => set(k, c)} />;
        if (k === 'key') return <ValueField key={k} label={label} value={v ?? ''} onChange={(nv) => set(k, nv === '' ? null : nv)} />;
        return <ValueField key={k} label={label} value={v} onChange={(nv) => set(k, nv)} path={path === undefined ? undefined : [...path, k]} />;
      })}
    </>
  );
}
