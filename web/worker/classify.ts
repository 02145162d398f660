/*
 * What a file someone opened appears to be, in words, so a refusal can
 * start from what the lab recognised ("a Locklab trace of
 * pause-past-expiry, seed 7, 32 events") before its first problem, and a
 * file opened in the wrong place can be offered where it belongs.
 */

export type FileKind = 'trace' | 'scenario' | 'json' | 'text';

export interface FileWhat {
  readonly kind: FileKind;
  /** A noun phrase: "a Locklab trace of pause-past-expiry (seed 7, 32 events)". */
  readonly words: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const nameOf = (v: unknown): string => (isObject(v) && typeof v.name === 'string' && v.name !== '' ? v.name.slice(0, 60) : 'an unnamed scenario');

/** Recognises a parsed document. */
export function classifyValue(data: unknown): FileWhat {
  if (!isObject(data)) return { kind: 'json', words: `JSON, but ${Array.isArray(data) ? 'a list' : 'a single value'} rather than a Locklab trace or scenario` };
  const schema = typeof data.schema === 'string' ? data.schema : '';
  if (schema.startsWith('locklab.trace') || (Array.isArray(data.events) && isObject(data.scenario))) {
    const events = Array.isArray(data.events) ? `${data.events.length} events` : 'no events';
    const seed = typeof data.seed === 'number' ? `seed ${data.seed}, ` : '';
    const real = data.source === 'real' ? ', recorded on real servers' : '';
    return { kind: 'trace', words: `a Locklab trace of ${nameOf(data.scenario)} (${seed}${events}${real})` };
  }
  if (Array.isArray(data.clients) || Array.isArray(data.machines) || isObject(data.store)) {
    const clients = Array.isArray(data.clients) ? `${data.clients.length} client${data.clients.length === 1 ? '' : 's'}` : 'no clients';
    const store = isObject(data.store) && typeof data.store.kind === 'string' ? ` on ${data.store.kind.slice(0, 30)}` : '';
    return { kind: 'scenario', words: `a Locklab scenario, ${nameOf(data)} (${clients}${store})` };
  }
  const fields = Object.keys(data)
    .slice(0, 5)
    .map((k) => JSON.stringify(k.slice(0, 30)));
  return { kind: 'json', words: `JSON, but not a Locklab trace or scenario (its fields: ${fields.join(', ') || 'none'})` };
}

/** Recognises a file's text. */
export function classifyText(text: string): FileWhat {
  try {
    return classifyValue(JSON.parse(text) as unknown);
  } catch {
    return { kind: 'text', words: 'not JSON' };
  }
}
