import { memo } from 'react';
import type { ClientSpec } from '../../sim/scenario/types.js';
import { tally } from '../tallies.js';
import { phpOf, useChecked } from './checked.js';
import { PauseFields, WorkTimeFields } from './DrawnFields.js';
import { CheckField, NumField, SelectField, TextField } from './fields.js';
import { JsonField, ValueField } from './ValueField.js';
import { spellOut } from './words.js';

const ACQUIRE_WORDS: Readonly<Record<string, string>> = {
  shared: 'Take a shared (read) lock',
  poll: 'Wait by polling (a blocking acquire on a store that cannot block)',
};

const KNOWN_ACQUIRE = new Set(['mode', 'method', 'retries', 'retryDelayMs', 'waitTimeoutMs']);
const KNOWN_CLIENT = new Set([
  'name',
  'machine',
  'startMs',
  'key',
  'ttlMs',
  'acquire',
  'workMs',
  'workTime',
  'pauseAfterAcquire',
  'refreshEveryMs',
  'checkRemaining',
  'writes',
  'release',
  'iterations',
  'thinkMs',
  'requestTimeoutMs',
  'steps',
]);

/**
 * What the client runs, as the PHP its steps (or its lifecycle settings)
 * stand for: shown once the form is a valid scenario, since the PHP is
 * written from the scenario the run would use (see checked.ts).
 */
function ClientPhp({ name, steps, index }: { name: string; steps: boolean; index: number }) {
  const php = useChecked(phpOf(index));
  // Open for a client written as steps, whose JSON reads less easily than its PHP.
  return (
    <details className="client-php" data-testid="client-php" open={steps}>
      <summary>{name} as PHP</summary>
      {php === undefined ? null : php === null ? (
        <p className="muted small">Shown when the form is a valid scenario: press Run to see what is wrong.</p>
      ) : (
        <pre className="mono" aria-label={`What ${name} runs, as PHP`}>
          <code>{php}</code>
        </pre>
      )}
    </details>
  );
}

/**
 * Every setting of one client's lock lifecycle, including the variants that
 * teach mistakes. A card is drawn again only when its own props change:
 * `update` and `remove` keep their identity, and the draft keeps a client's
 * object until it is edited, so typing in one card of 200 draws that one.
 */
export const ClientCard = memo(function ClientCard({
  client,
  index,
  machines,
  alone,
  update,
  remove,
}: {
  client: ClientSpec;
  index: number;
  /** The scenario's machines' names. */
  machines: readonly string[];
  /** Whether it is the scenario's only client, which cannot be removed. */
  alone: boolean;
  update: (path: (string | number)[], v: unknown) => void;
  /** Removes the client at `index`. */
  remove: (index: number) => void;
}) {
  tally(`client-card:${index}`);
  const at = (...p: (string | number)[]) => ['clients', index, ...p];
  const acquire = client.acquire as unknown as Record<string, unknown>;
  const extra = client as unknown as Record<string, unknown>;
  return (
    <fieldset className="card client-card" data-client-card={client.name}>
      <legend>Client {client.name}</legend>
      <div className="fields">
        <TextField label="Name" value={client.name} onChange={(v) => update(at('name'), v)} />
        <SelectField
          label="Machine"
          value={client.machine}
          options={machines.includes(client.machine) ? machines : [client.machine, ...machines]}
          onChange={(v) => update(at('machine'), v)}
        />
        <NumField label="Starts at (ms)" value={client.startMs} min={0} onChange={(v) => update(at('startMs'), v)} />
        <TextField label="Key" value={client.key} onChange={(v) => update(at('key'), v)} />
        <NumField label="TTL (ms)" value={client.ttlMs} min={0} onChange={(v) => update(at('ttlMs'), v)} />
        {/* A client written as steps does what its steps say: the lifecycle's settings would be refused, so they are not offered. */}
        {client.steps === null && (
          <>
            <WorkTimeFields client={client} replace={(c) => update(at(), c)} />
            <SelectField
              label="Acquire mode"
              value={client.acquire.mode}
              options={['try', 'blocking'] as const}
              labelOf={(v) => (v === 'try' ? 'try, with retries' : 'blocking: wait for it')}
              onChange={(v) => update(at('acquire', 'mode'), v)}
            />
            <SelectField
              label="Acquire method"
              value={client.acquire.method}
              options={['atomic', 'exists-then-set'] as const}
              labelOf={(v) => (v === 'atomic' ? 'one atomic request' : 'check, then set (the race)')}
              onChange={(v) => update(at('acquire', 'method'), v)}
            />
            <NumField label="Retries" value={client.acquire.retries} step="1" min={0} onChange={(v) => update(at('acquire', 'retries'), v)} />
            <NumField label="Retry delay (ms)" value={client.acquire.retryDelayMs} min={0} onChange={(v) => update(at('acquire', 'retryDelayMs'), v)} />
            <NumField
              label="Blocking wait timeout (ms)"
              value={client.acquire.waitTimeoutMs}
              nullable
              onChange={(v) => update(at('acquire', 'waitTimeoutMs'), v)}
            />
            {Object.entries(acquire)
              .filter(([k]) => !KNOWN_ACQUIRE.has(k))
              .map(([k, v]) => (
                <ValueField
                  key={k}
                  label={ACQUIRE_WORDS[k] ?? `Acquire: ${spellOut(k).toLowerCase()}`}
                  value={v}
                  onChange={(nv) => update(at('acquire', k), nv)}
                  path={at('acquire', k)}
                />
              ))}
            <NumField
              label="Refresh every (ms)"
              value={client.refreshEveryMs}
              nullable
              onChange={(v) => update(at('refreshEveryMs'), v)}
              hint="empty: never refresh"
            />
            <CheckField label="Check remaining lifetime before writing" value={client.checkRemaining} onChange={(v) => update(at('checkRemaining'), v)} />
            <NumField label="Writes per lock" value={client.writes} step="1" min={0} onChange={(v) => update(at('writes'), v)} />
            <SelectField
              label="Release method"
              value={client.release.method}
              options={['token-checked', 'plain-del'] as const}
              labelOf={(v) => (v === 'token-checked' ? 'only if it still holds its token' : 'plain DEL, whoever holds it (the mistake)')}
              onChange={(v) => update(at('release', 'method'), v)}
            />
            <CheckField label="Release in a finally block" value={client.release.inFinally} onChange={(v) => update(at('release', 'inFinally'), v)} />
            <NumField label="Iterations" value={client.iterations} step="1" min={1} onChange={(v) => update(at('iterations'), v)} />
            <NumField label="Think between iterations (ms)" value={client.thinkMs} min={0} onChange={(v) => update(at('thinkMs'), v)} />
          </>
        )}
        <NumField label="Request timeout (ms)" value={client.requestTimeoutMs} min={0} onChange={(v) => update(at('requestTimeoutMs'), v)} />
        {client.steps === null && <PauseFields client={client} replace={(c) => update(at(), c)} />}
        {Object.entries(extra)
          .filter(([k]) => !KNOWN_CLIENT.has(k))
          .map(([k, v]) => (
            <ValueField key={k} label={spellOut(k)} value={v} onChange={(nv) => update(at(k), nv)} path={at(k)} />
          ))}
        {client.steps !== null && <JsonField label="Steps" value={client.steps} onChange={(v) => update(at('steps'), v)} path={at('steps')} multiline />}
      </div>
      <ClientPhp name={client.name} steps={client.steps !== null} index={index} />
      <button type="button" className="small-button" onClick={() => remove(index)} disabled={alone}>
        Remove client {client.name}
      </button>
    </fieldset>
  );
});
