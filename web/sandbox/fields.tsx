import { useId } from 'react';

/*
 * Labelled form controls. Each writes a typed value through onChange; a
 * number field that is empty or not a number passes null, so "no refresh"
 * can be expressed, and the worker's validation names anything wrong.
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
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="number"
        step={step}
        min={min}
        value={value ?? ''}
        placeholder={nullable ? 'none' : ''}
        aria-describedby={hint === undefined ? undefined : `${id}-hint`}
        onChange={(ev) => {
          const t = ev.target.value;
          onChange(t === '' ? (nullable ? null : 0) : Number(t));
        }}
      />
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
