import type { Challenge, Json, Knob } from '../../sim/lessons/types.js';

/*
 * A challenge's reference solution in the words of its own controls: the
 * label the learner reads beside each knob, the option as its dropdown names
 * it, and a number with the unit the control shows, so the answer can be
 * found on the page without reading a scenario path or a JSON value.
 */

/** Fault fields in words, as the learner edits them beside a fault's dropdown. */
export const FIELD_LABELS: Readonly<Record<string, string>> = { atMs: 'at', durationMs: 'lasting', byMs: 'by', extraMs: 'extra delay', downMs: 'down for' };

const quoted = (s: string): string => `“${s}”`;

const same = (a: Json, b: Json): boolean => JSON.stringify(a) === JSON.stringify(b);

/** One change of the solution as the learner would make it with the knob at `path`. */
function changeText(knobs: readonly Knob[], path: string, value: Json): string {
  const k = knobs.find((x) => x.path === path);
  if (k === undefined) return `set ${path} to ${JSON.stringify(value)}`;
  if (k.kind === 'boolean') return `${value === true ? 'tick' : 'untick'} ${quoted(k.label)}`;
  if (k.kind === 'choice') {
    const choice = k.choices?.find((c) => same(c.value, value));
    return `set ${quoted(k.label)} to ${choice === undefined ? JSON.stringify(value) : quoted(choice.label)}`;
  }
  const unit = k.unit === undefined ? '' : ` ${k.unit}`;
  return `set ${quoted(k.label)} to ${typeof value === 'number' ? `${value}${unit}` : JSON.stringify(value)}`;
}

/** "A, B and C". */
function listed(parts: readonly string[]): string {
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]!}`;
}

/**
 * The reference solution as one sentence: "Set “New pod starts its job at”
 * to 5500 ms.", "Set “A's release()” to “in a finally block”.", "Add
 * “Pause A (GC stall)” at 1000 ms, lasting 8000 ms."
 */
export function solutionText(challenge: Challenge): string {
  const parts = Object.entries(challenge.solution.set ?? {}).map(([path, value]) => changeText(challenge.knobs, path, value));
  const add = challenge.solution.addFault;
  if (add !== undefined) {
    const option = challenge.knobs.find((k) => k.kind === 'fault')?.faults?.[add.choice];
    const fields = Object.entries(add.fields ?? {}).map(([f, v]) => `${FIELD_LABELS[f] ?? f} ${v} ms`);
    parts.push(`add ${quoted(option?.label ?? `fault ${add.choice + 1}`)}${fields.length === 0 ? '' : ` ${fields.join(', ')}`}`);
  }
  const sentence = listed(parts);
  return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`;
}
