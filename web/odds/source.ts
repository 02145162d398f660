import { normalizeScenario } from '../../sim/scenario/normalize.js';
import type { Scenario } from '../../sim/scenario/types.js';
import { BUILTIN_SCENARIOS } from '../../sim/scenarios/index.js';
import { useDraft } from '../sandbox/draft.js';
import { sweepErrorText } from './form-errors.js';
import { defaultRange, leadChoice, paramChoices, type ParamChoice } from './params.js';
import { SANDBOX, useOdds } from './store.js';

export { SANDBOX };
import type { Origin } from '../state/traces.js';

/**
 * What a sweep of the Odds view ran, kept beside its report: the scenario it
 * started from (a Sandbox draft changes after the sweep; the report stays the
 * sweep's), and the name a terminal knows it by: a built-in's name, or for
 * the Sandbox's scenario the file its Export writes.
 */
export interface Swept {
  readonly ref: string;
  readonly base: Scenario;
  readonly sandbox: boolean;
}

/** The file the Sandbox's Export writes for a scenario, which `locklab sweep` and `locklab run` then read. */
export function exportFileName(s: Pick<Scenario, 'name'>): string {
  return `${s.name}.json`;
}

/** The scenario a form's choice names, as a sweep would run it; throws the scenario's issues when the Sandbox's draft is not valid. */
export function sweptOf(choice: string): Swept {
  if (choice !== SANDBOX) return { ref: choice, base: normalizeScenario(BUILTIN_SCENARIOS[choice], choice), sandbox: false };
  const draft = useDraft.getState().draft;
  if (draft === null) throw new Error('the Sandbox has no scenario: build or import one there first');
  const base = normalizeScenario(draft, 'the Sandbox’s scenario');
  return { ref: exportFileName(draft), base, sandbox: true };
}

/** The run of a sweep's point with one seed, as the lab opens it: the same scenario, the same overrides, so the same run hash. */
export function pointOrigin(swept: Swept, sets: readonly string[], seed: number): Exclude<Origin, { kind: 'file' }> {
  if (!swept.sandbox) return { kind: 'builtin', name: swept.ref, seed, overrides: [...sets] };
  return { kind: 'scenario', raw: swept.base, seed, overrides: [...sets] };
}

/** The stem of a sweep's downloads: the scenario's name, without a file's `.json`. */
export function downloadStem(swept: Swept): string {
  return swept.sandbox ? swept.base.name : swept.ref;
}

/** The parameters a form's scenario offers, and why none when the Sandbox's draft is not a valid scenario. */
export function choicesOf(choice: string): { choices: ParamChoice[]; problem: string | null } {
  try {
    return { choices: paramChoices(sweptOf(choice).base), problem: null };
  } catch (err) {
    return { choices: [], problem: sweepErrorText(err, []) };
  }
}

/** The values a parameter is varied over at first: about ten steps around the scenario's value, or both for a switch. */
export function specFor(c: ParamChoice | undefined): string {
  if (c === undefined) return '';
  if (c.kind === 'boolean') return 'false,true';
  const r = defaultRange(c.value as number, c.bounds);
  return `${r.from}..${r.to}:${r.step}`;
}

/** Picks the scenario to sweep, keeping the varied parameter where the new one has it, else starting from its lead parameter. */
export function chooseScenario(choice: string): void {
  const { form, setForm } = useOdds.getState();
  const next = choicesOf(choice).choices;
  const keep = next.find((c) => c.path === form.path1) ?? leadChoice(next);
  setForm({ scenario: choice, path1: keep?.path ?? '', spec1: specFor(keep), path2: '' });
}
