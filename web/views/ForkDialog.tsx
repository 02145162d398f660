import { useEffect, useId, useRef, useState } from 'react';
import { formatInstant } from '../../sim/time.js';
import { faultKindsFor, faultTemplate } from '../sandbox/templates.js';
import { NumField, SelectField } from '../sandbox/fields.js';
import type { LoadedTrace } from '../state/traces.js';
import { useUi } from '../state/ui.js';
import { fork, type ForkChange } from './fork.js';

type Choice = 'fencing' | 'ttl' | 'add-fault' | 'remove-fault';

/**
 * Fork from here: change one thing at the playhead (fencing, a TTL, a fault
 * placed at the playhead's time) and run again; both runs then show on one
 * time axis.
 */
export function ForkDialog({ trace, open, onClose }: { trace: LoadedTrace; open: boolean; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement | null>(null);
  const playheadUs = useUi((s) => s.playheadUs);
  const scenario = trace.doc.scenario;
  const [choice, setChoice] = useState<Choice>('fencing');
  const [client, setClient] = useState(scenario.clients[0]?.name ?? '');
  const [ttlMs, setTtlMs] = useState<number | null>(scenario.clients[0]?.ttlMs ?? 1000);
  const [kind, setKind] = useState<string>('pause');
  const [remove, setRemove] = useState(0);
  const [running, setRunning] = useState(false);
  const name = useId();

  useEffect(() => {
    const d = ref.current;
    if (d === null) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);

  const atMs = Math.round(playheadUs / 1000);
  const change = (): ForkChange => {
    switch (choice) {
      case 'fencing':
        return { what: 'fencing', on: !scenario.resource.fencing };
      case 'ttl':
        return { what: 'ttl', client, ttlMs: ttlMs ?? 1 };
      case 'add-fault':
        return { what: 'add-fault', fault: faultTemplate(kind, scenario, atMs) };
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
        <legend>What to change</legend>
        {option('fencing', scenario.resource.fencing ? 'Turn fencing off' : 'Turn fencing on')}
        {option('ttl', 'Change a client’s TTL')}
        {choice === 'ttl' && (
          <div className="fields fields-row">
            <SelectField label="Client" value={client} options={scenario.clients.map((c) => c.name)} onChange={setClient} />
            <NumField label="TTL (ms)" value={ttlMs} min={1} onChange={setTtlMs} />
          </div>
        )}
        {option('add-fault', `Add a fault at ${formatInstant(atMs * 1000)}`)}
        {choice === 'add-fault' && (
          <div className="fields fields-row">
            <SelectField label="Fault" value={kind} options={faultKindsFor(scenario.store.kind)} onChange={setKind} />
            <span className="muted small">{JSON.stringify(faultTemplate(kind, scenario, atMs))}</span>
          </div>
        )}
        {option('remove-fault', 'Remove a fault', scenario.faults.length === 0)}
        {choice === 'remove-fault' && scenario.faults.length > 0 && (
          <div className="fields fields-row">
            <SelectField label="Fault" value={String(remove)} options={scenario.faults.map((_, i) => String(i))} onChange={(v) => setRemove(Number(v))} />
            <span className="muted small">{JSON.stringify(scenario.faults[remove])}</span>
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
