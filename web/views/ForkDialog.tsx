import { useEffect, useId, useRef, useState } from 'react';
import type { FaultSpec } from '../../sim/scenario/types.js';
import { formatInstant } from '../../sim/time.js';
import { FaultFields } from '../sandbox/FaultFields.js';
import { NumField, SelectField } from '../sandbox/fields.js';
import { placeFault } from '../sandbox/place.js';
import { faultKindsFor } from '../sandbox/templates.js';
import { faultDescription, faultName } from '../sandbox/words.js';
import type { LoadedTrace } from '../state/traces.js';
import { useUi } from '../state/ui.js';
import { fork, type ForkChange } from './fork.js';

type Choice = 'fencing' | 'ttl' | 'add-fault' | 'remove-fault';

/**
 * Fork from here: change one thing and run again; both runs then show on
 * one time axis. A fault is added at the playhead's time; fencing and a
 * TTL are settings of the whole run, and the dialog says so.
 */
export function ForkDialog({ trace, open, onClose }: { trace: LoadedTrace; open: boolean; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement | null>(null);
  const playheadUs = useUi((s) => s.playheadUs);
  const scenario = trace.doc.scenario;
  const [choice, setChoice] = useState<Choice>('fencing');
  const [client, setClient] = useState(scenario.clients[0]?.name ?? '');
  const [ttlMs, setTtlMs] = useState<number | null>(scenario.clients[0]?.ttlMs ?? 1000);
  const [kind, setKind] = useState<string>('pause');
  const [fault, setFault] = useState<FaultSpec | null>(null);
  const [remove, setRemove] = useState(0);
  const [running, setRunning] = useState(false);
  const name = useId();
  const atMs = Math.round(playheadUs / 1000);
  const kinds = faultKindsFor(scenario.store.kind);

  useEffect(() => {
    const d = ref.current;
    if (d === null) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);

  // A new fault starts from where it matters, then moves to the playhead: this is a fork from here.
  useEffect(() => {
    setFault({ ...placeFault(kinds.includes(kind) ? kind : 'pause', scenario, trace).fault, atMs });
  }, [kind, atMs, trace]);

  const change = (): ForkChange => {
    switch (choice) {
      case 'fencing':
        return { what: 'fencing', on: !scenario.resource.fencing };
      case 'ttl':
        return { what: 'ttl', client, ttlMs: ttlMs ?? 1 };
      case 'add-fault':
        return { what: 'add-fault', fault: fault ?? placeFault('pause', scenario, trace).fault };
      case 'remove-fault':
        return { what: 'remove-fault', index: remove };
    }
  };
  const go = async () => {
    setRunning(true);
    const b = await fork(trace, change());
    setRunning(false);
    if (b !== null) onClose();
  };
  const option = (value: Choice, label: string, disabled = false) => (
    <label className="radio">
      <input type="radio" name={name} value={value} checked={choice === value} disabled={disabled} onChange={() => setChoice(value)} /> {label}
    </label>
  );

  return (
    <dialog ref={ref} className="fork" aria-labelledby={`${name}-title`} onClose={onClose} data-testid="fork-dialog">
      <h2 id={`${name}-title`}>Fork from {formatInstant(playheadUs)}</h2>
      <p className="muted">
        Change one thing and run the scenario again with the same seed. Both runs then share one time axis, so you can see where they part.
      </p>
      <fieldset>
        <legend>At the playhead, {formatInstant(atMs * 1000)}</legend>
        {option('add-fault', `Add a fault at ${formatInstant(atMs * 1000)}`)}
        {choice === 'add-fault' && fault !== null && (
          <div className="fork-fault">
            <div className="fields fields-row">
              <SelectField label="Fault" value={kinds.includes(kind) ? kind : 'pause'} options={kinds} labelOf={faultName} onChange={setKind} />
            </div>
            <p className="muted small">{faultDescription(fault.kind)}</p>
            <div className="fields fields-row">
              <FaultFields fault={fault} scenario={scenario} set={(field, v) => setFault({ ...fault, [field]: v } as FaultSpec)} />
            </div>
          </div>
        )}
      </fieldset>
      <fieldset>
        <legend>For the whole run, from its start</legend>
        {option('fencing', scenario.resource.fencing ? 'Turn fencing off' : 'Turn fencing on')}
        {option('ttl', 'Change a client’s TTL')}
        {choice === 'ttl' && (
          <div className="fields fields-row">
            <SelectField label="Client" value={client} options={scenario.clients.map((c) => c.name)} onChange={setClient} />
            <NumField label="TTL (ms)" value={ttlMs} min={1} onChange={setTtlMs} />
          </div>
        )}
        {option('remove-fault', 'Remove a fault', scenario.faults.length === 0)}
        {choice === 'remove-fault' && scenario.faults.length > 0 && (
          <div className="fields fields-row">
            <SelectField
              label="Fault"
              value={String(remove)}
              options={scenario.faults.map((_, i) => String(i))}
              labelOf={(v) => {
                const f = scenario.faults[Number(v)]!;
                return `${Number(v) + 1}. ${faultName(f.kind)} at ${formatInstant(f.atMs * 1000)}`;
              }}
              onChange={(v) => setRemove(Number(v))}
            />
          </div>
        )}
      </fieldset>
      <div className="dialog-actions">
        <button type="button" onClick={onClose}>
          Cancel
        </button>
        <button type="button" className="primary" onClick={() => void go()} disabled={running} data-testid="fork-run">
          {running ? 'Running…' : 'Run the fork'}
        </button>
      </div>
    </dialog>
  );
}
