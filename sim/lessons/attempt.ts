import type { Scenario } from '../scenario/types.js';
import type { Challenge, Json, RunRef } from './types.js';

/** A learner's attempt at a challenge: the knob values they changed, and the fault they added, if any. */
export interface Attempt {
  readonly set: Readonly<Record<string, Json>>;
  readonly fault: { readonly choice: number; readonly fields?: Readonly<Record<string, number>> } | null;
}

export const NO_CHANGE: Attempt = { set: {}, fault: null };

/** The run an attempt makes: the challenge's scenario, its knob values as overrides, its fault appended. */
export function attemptRef(c: Challenge, a: Attempt): RunRef {
  const knob = c.knobs.find((k) => k.kind === 'fault');
  const option = a.fault === null ? undefined : knob?.faults?.[a.fault.choice];
  const fault = option === undefined ? undefined : ({ ...(option.fault as Record<string, Json>), ...(a.fault?.fields ?? {}) } as Json);
  return { scenario: c.scenario, set: a.set, ...(fault === undefined ? {} : { addFaults: [fault] }) };
}

/** How many things an attempt changes: each knob set, and the added fault. */
export function changesOf(_c: Challenge, a: Attempt): number {
  return Object.keys(a.set).length + (a.fault === null ? 0 : 1);
}

/** The value at a `--set` style path of a normalized scenario (`clients.B.ttlMs`, `faults[0].durationMs`), or undefined. */
export function valueAt(scenario: Scenario, path: string): unknown {
  let node: unknown = scenario;
  for (const part of path
    .replace(/\[(\w[\w.-]*)\]/g, '.$1')
    .split('.')
    .filter((s) => s !== '')) {
    if (Array.isArray(node)) node = /^\d+$/.test(part) ? node[Number(part)] : node.find((item: { name?: unknown } | null) => item?.name === part);
    else if (node !== null && typeof node === 'object') node = (node as Record<string, unknown>)[part];
    else return undefined;
  }
  return node;
}
