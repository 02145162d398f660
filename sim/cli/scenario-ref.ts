import { existsSync } from 'node:fs';
import { InputError } from '../errors.js';
import { BUILTIN_NAMES, BUILTIN_SCENARIOS } from '../scenarios/index.js';
import { readJsonFile } from './files.js';

const TRACE_NOT_SCENARIO = 'is a trace, not a scenario: judge it with `locklab check`, or convert it with `locklab export`';

/** Whether `doc` is a trace document (it has a schema and events) rather than a scenario. */
function isTraceDocument(doc: unknown): boolean {
  return typeof doc === 'object' && doc !== null && !Array.isArray(doc) && 'schema' in doc && 'events' in doc;
}

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
  if (existsSync(ref) || /[/\\]|\.json$/i.test(ref)) {
    if (/\.jsonl$/i.test(ref)) throw new InputError(ref, [{ path: '', message: TRACE_NOT_SCENARIO }]);
    const document = readJsonFile(ref);
    if (isTraceDocument(document)) throw new InputError(ref, [{ path: '', message: TRACE_NOT_SCENARIO }]);
    return { document, label: ref, builtin: false };
  }
  const raw = BUILTIN_SCENARIOS[ref];
  if (raw === undefined) {
    throw new InputError(ref, [
      { path: '', message: `no such file, and no built-in scenario of that name (built-ins: ${BUILTIN_NAMES.join(', ')}${seeAlso})` },
    ]);
  }
  return { document: raw, label: `built-in ${ref}`, builtin: true };
}
