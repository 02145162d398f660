import type { Sweep } from '../../sim/lessons/types.js';
import { parseVary } from '../../sim/odds/range.js';
import { fieldName } from '../odds/form-errors.js';
import { showParam } from '../odds/params.js';
import { choicesOf } from '../odds/source.js';
import type { OddsForm } from '../odds/store.js';

/** A lesson's sweep in words, as its card says what the Odds view will run. */
export interface SweepWords {
  /** Each varied field by the name the Odds view's form gives it, and its values. */
  readonly fields: readonly { readonly path: string; readonly label: string; readonly values: string }[];
  /** Points of the grid: every combination of the values. */
  readonly points: number;
  readonly runs: number;
}

/** Values in a sentence: "10,000, 30,000 and 60,000"; a long range by its ends and step. */
function valuesText(values: readonly unknown[], range: boolean): string {
  const shown = values.map(showParam);
  if (range && values.length > 4) {
    const step = (values[1] as number) - (values[0] as number);
    return `${shown[0]} to ${shown[shown.length - 1]} in steps of ${showParam(Number(step.toPrecision(12)))} (${values.length} values)`;
  }
  return shown.length === 1 ? shown[0]! : `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
}

/** What a sweep varies and runs, named as the Odds view names it (a field it does not offer goes by its path). */
export function sweepWords(sweep: Sweep): SweepWords {
  const { choices } = choicesOf(sweep.scenario);
  const fields = sweep.vary.map((text) => {
    const v = parseVary(text);
    return { path: v.path, label: fieldName(choices, v.path), values: valuesText(v.values, text.slice(text.indexOf('=') + 1).includes('..')) };
  });
  const points = sweep.vary.reduce((n, text) => n * parseVary(text).values.length, 1);
  return { fields, points, runs: sweep.runs };
}

/** The Odds view's form as a sweep fills it in: each field's path and values as `--vary` wrote them, trimmed as the form's boxes hold them. */
export function sweepForm(sweep: Sweep): OddsForm {
  const split = (text: string | undefined): [string, string] => {
    if (text === undefined) return ['', ''];
    const at = text.indexOf('=');
    return [text.slice(0, at).trim(), text.slice(at + 1).trim()];
  };
  const [path1, spec1] = split(sweep.vary[0]);
  const [path2, spec2] = split(sweep.vary[1]);
  return { scenario: sweep.scenario, path1, spec1, path2, spec2, runs: String(sweep.runs) };
}
