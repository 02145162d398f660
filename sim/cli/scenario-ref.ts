import { existsSync } from 'node:fs';
import { InputError } from '../errors.js';
import { BUILTIN_NAMES, BUILTIN_SCENARIOS } from '../scenarios/index.js';
import { readJsonFile } from './files.js';

/** A scenario named on a command line or in a test: the document, and what to call it in messages. */
export interface ScenarioRef {
  readonly document: unknown;
  readonly label: string;
  readonly builtin: boolean;
}

/**
 * What a scenario reference names, as `locklab run` and `replay()` read it:
 * a file when one exists there or the reference looks like a path, otherwise
 * a built-in scenario of that name. `seeAlso` ends the message for a name
 * that is neither (the command points at `locklab scenarios`).
 */
export function readScenarioRef(ref: string, seeAlso = ''): ScenarioRef {
  if (existsSync(ref) || /[/\\]|\.json$/i.test(ref)) return { document: readJsonFile(ref), label: ref, builtin: false };
  const raw = BUILTIN_SCENARIOS[ref];
  if (raw === undefined) {
    throw new InputError(ref, [
      { path: '', message: `no such file, and no built-in scenario of that name (built-ins: ${BUILTIN_NAMES.join(', ')}${seeAlso})` },
    ]);
  }
  return { document: raw, label: `built-in ${ref}`, builtin: true };
}
