import { useId, useState } from 'react';

/*
 * Labelled form controls. Each writes a typed value through onChange; a
 * number field that may be empty ("no refresh") passes null when emptied,
 * and the worker's validation names anything wrong.
 */

export function NumField({
  label,
  value,
  onChange,
  nullable = false,
  step = 'any',
  min,
  hint,
}: {
  label: string;
  value: number | null;
  onChange: (v: number | null) => void;
  nullable?: boolean;
  step?: string;
  min?: number;
  hint?: string | undefined;
}) {
  const id = useId();
  // A box emptied to type a new value stays empty while it has the focus, and the scenario keeps its value: a field that needs a number is never read as 0.
  const [emptied, setEmptied] = useState(false);
  const missing = emptied && !nullable && value !== null;
  const notes = [hint === undefined ? undefined : `${id}-hint`, missing ? `${id}-missing` : undefined].filter((n) => n !== undefined);
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="number"
        step={step}
        min={min}
        value={emptied || value === null ? '' : value}
        placeholder={nullable ? 'none' : ''}
        aria-invalid={missing ? true : undefined}
        aria-describedby={notes.length === 0 ? undefined : notes.join(' ')}
        onChange={(ev) => {
          const t = ev.target.value;
          if (t === '' && !nullable) {
            setEmptied(true);
            return;
          }
          setEmptied(false);
          onChange(t === '' ? null : Number(t));
        }}
        onBlur={() => setEmptied(false)}
      />
      {missing && (
        <small id={`${id}-missing`} className="field-missing" role="status">
          Needs a number; left empty, it stays {value}.
        </small>
      )}
      {hint !== undefined && (
        <small id={`${id}-hint`} className="muted">
          {hint}
        </small>
      )}
    </div>
  );
}

export function TextField({ label, value, onChange, hint }: { label: string; value: string; onChange: (v: string) => void; hint?: string | undefined }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} type="text" value={value} onChange={(ev) => onChange(ev.target.value)} aria-describedby={hint === undefined ? undefined : `${id}-hint`} />
      {hint !== undefined && (
        <small id={`${id}-hint`} className="muted">
          {hint}
        </small>
      )}
    </div>
  );
}

export function SelectField<T extends string>({
  label,
  value,
  options,
  onChange,
  labelOf,
  hint,
}: {
  label: string;
  value: T;
  options: readonly T[];
  onChange: (v: T) => void;
  /** Each option in words; the value itself when absent. */
  labelOf?: ((v: T) => string) | undefined;
  hint?: string | undefined;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(ev) => onChange(ev.target.value as T)} aria-describedby={hint === undefined ? undefined : `${id}-hint`}>
        {options.map((o) => (
          <option key={o} value={o}>
            {labelOf === undefined ? o : labelOf(o)}
          </option>
        ))}
      </select>
      {hint !== undefined && (
        <small id={`${id}-hint`} className="muted">
          {hint}
        </small>
      )}
    </div>
  );
}

export function CheckField({ label, value, onChange }: { label: string; value: boolean; onChange: (v: boolean) => void }) {
  const id = useId();
  return (
    <div className="field field-check">
      <input id={id} type="checkbox" checked={value} onChange={(ev) => onChange(ev.target.checked)} />
      <label htmlFor={id}>{label}</label>
    </div>
  );
}
