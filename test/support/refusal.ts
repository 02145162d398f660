import { InputError, type InputIssue } from '../../sim/errors.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';

/** The issues normalizing `doc` raises, or none when the scenario is accepted. */
export function scenarioIssues(doc: unknown, source = 'bad.json'): InputIssue[] {
  try {
    normalizeScenario(doc, source);
    return [];
  } catch (e) {
    if (e instanceof InputError) return [...e.issues];
    throw e;
  }
}

/** The message a refused scenario gets, as the CLI prints it; fails the test when the scenario is accepted. */
export function refusal(doc: unknown, source = 'bad.json'): string {
  try {
    normalizeScenario(doc, source);
  } catch (e) {
    if (e instanceof InputError) return e.message;
    throw e;
  }
  throw new Error('the scenario was accepted');
}
