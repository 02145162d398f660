import stringify from 'json-stringify-pretty-compact';
import { useEffect, useId, useState } from 'react';
import { textKey, useDraft } from './draft.js';
import { CheckField, NumField, SelectField, TextField } from './fields.js';

/**
 * A control chosen by the value's type, for settings the lab does not know
 * in advance (a store model's own fields, a store-specific fault): a
 * checkbox, a number, a choice of names, text, or JSON for anything else.
 */
export function ValueField({
  label,
  value,
  onChange,
  choices,
  labelOf,
  hint,
  path,
}: {
  label: string;
  value: unknown;
  onChange: (v: unknown) => void;
  choices?: readonly string[] | undefined;
  /** Each choice in words. */
  labelOf?: ((v: string) => string) | undefined;
  hint?: string | undefined;
  /** Where the value is in the Sandbox's draft: JSON typed for it is kept there (see JsonField). */
  path?: readonly (string | number)[] | undefined;
}) {
  if (typeof value === 'boolean') return <CheckField label={label} value={value} onChange={onChange} />;
  if (typeof value === 'number') return <NumField label={label} value={value} onChange={onChange} hint={hint} />;
  if (typeof value === 'string') {
    if (choices !== undefined && choices.length > 0)
      return (
        <SelectField
          label={label}
          value={value}
          options={choices.includes(value) ? choices : [value, ...choices]}
          onChange={onChange}
          labelOf={labelOf}
          hint={hint}
        />
      );
    return <TextField label={label} value={value} onChange={onChange} hint={hint} />;
  }
  return <JsonField label={label} value={value} onChange={onChange} path={path} />;
}

/** Whether text is JSON. */
function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Edits any JSON value as text; text that is not JSON yet is flagged and
 * kept out of the scenario until it is. `multiline`: a text area holding the
 * JSON laid out over lines, for a value as long as a client's steps.
 * `path`: where the value is in the Sandbox's draft, which keeps the text
 * typed here (DraftState.texts), so the box shows it again when it comes
 * back: the Sandbox reopened, or the page reloaded.
 */
export function JsonField({
  label,
  value,
  onChange,
  multiline = false,
  path,
}: {
  label: string;
  value: unknown;
  onChange: (v: unknown) => void;
  multiline?: boolean;
  path?: readonly (string | number)[] | undefined;
}) {
  const id = useId();
  const key = path === undefined ? undefined : textKey(path);
  /** What the user typed here, while the draft still keeps it for this value. */
  const typed = (): string | undefined => (key === undefined ? undefined : useDraft.getState().texts[key]);
  // Over lines, what fits on one stays on one: a step is a line, not a column of its fields.
  const show = (v: unknown): string => (multiline ? stringify(v, { maxLength: 72 }) : JSON.stringify(v));
  const [text, setText] = useState(() => typed() ?? show(value));
  const [bad, setBad] = useState(() => !isJson(text));
  // Follow the value when it changes from elsewhere, but not while it is the user's own text being typed.
  useEffect(() => {
    setText((t) => {
      if (t === typed()) return t;
      try {
        if (JSON.stringify(JSON.parse(t)) === JSON.stringify(value)) return t;
      } catch {
        // The text is mid-edit; the value came from elsewhere, so show it.
      }
      setBad(false);
      return show(value);
    });
    // `show` changes only with `multiline`, which a field keeps.
  }, [value]);
  const editing = {
    value: text,
    'aria-invalid': bad,
    'aria-describedby': bad ? `${id}-err` : undefined,
    onChange: (ev: { target: { value: string } }) => {
      setText(ev.target.value);
      if (key !== undefined) useDraft.getState().keepText(key, ev.target.value);
      try {
        const parsed: unknown = JSON.parse(ev.target.value);
        setBad(false);
        onChange(parsed);
      } catch {
        setBad(true);
      }
    },
  };
  return (
    <div className={multiline ? 'field field-wide' : 'field'}>
      <label htmlFor={id}>{label} (JSON)</label>
      {multiline ? (
        <textarea id={id} className="mono" rows={Math.min(18, text.split('\n').length + 1)} spellCheck={false} {...editing} />
      ) : (
        <input id={id} type="text" className="mono" {...editing} />
      )}
      {bad && (
        <small id={`${id}-err`} className="warn">
          not JSON yet
        </small>
      )}
    </div>
  );
}
