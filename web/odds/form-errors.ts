import { InputError, show } from '../../sim/errors.js';
import { parseVary, type Vary } from '../../sim/odds/range.js';
import type { ParamChoice } from './params.js';

/*
 * The Odds form's mistakes in the form's own words. The sweep's parser and
 * the scenario's checks speak the command line's language (`--vary`,
 * `faults[0].durationMs`); the learner picked "pause of A at 1 s (ms)" and
 * typed into a box whose hint is "from..to:step, or a list a,b", so that is
 * what a message names.
 */

/** What the Values box takes, said in full. */
const SYNTAX = 'from..to:step (e.g. 7000..17000:1000) or a list a,b';

/** The name of a parameter as the form shows it: its label when it is one offered, else the path typed. */
export function fieldName(choices: readonly ParamChoice[], path: string): string {
  return choices.find((c) => c.path === path)?.label ?? path;
}

/**
 * Reads one parameter of the form, refusing in the field's name: a range
 * that does not parse, and values of the wrong kind for a parameter
 * offered (a number's values must be numbers, fencing's true or false),
 * before the scenario is ever touched.
 */
export function readVary(choices: readonly ParamChoice[], path: string, spec: string): Vary {
  const name = fieldName(choices, path);
  let vary: Vary;
  try {
    vary = parseVary(`${path.trim()}=${spec.trim()}`, name);
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    // The parser names the path after the source; the field's name already says which one.
    throw new InputError(
      name,
      err.issues.map((i) => ({ path: '', message: i.message })),
      err.more,
    );
  }
  const kind = choices.find((c) => c.path === path.trim())?.kind;
  if (kind === 'number' && !vary.values.every((v) => typeof v === 'number' && Number.isFinite(v)))
    throw new InputError(name, [{ path: '', message: `expected numbers, as ${SYNTAX}, got ${show(spec.trim())}` }]);
  if (kind === 'boolean' && !vary.values.every((v) => typeof v === 'boolean'))
    throw new InputError(name, [{ path: '', message: `expected true or false, as a list (false,true), got ${show(spec.trim())}` }]);
  return vary;
}

/** An error of a sweep as one line per issue, naming each scenario path by the form's label for it. */
export function sweepErrorText(err: unknown, choices: readonly ParamChoice[]): string {
  if (!(err instanceof InputError)) return String((err as Error | undefined)?.message ?? err);
  // The command line's own option names mean nothing on this page.
  const source = err.source === '--vary' || err.source === '--set' ? '' : err.source;
  return err
    .shown()
    .map((i) => [source, i.path === '' ? '' : fieldName(choices, i.path), i.message].filter((part) => part !== '').join(': '))
    .join('\n');
}
