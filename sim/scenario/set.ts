import { InputError, show } from '../errors.js';
import { checkJsonValue } from '../json.js';
import { joinPath } from './jsonpath.js';
import { LIMITS, limitText } from './limits.js';
import { normalizeScenario } from './normalize.js';
import type { Scenario } from './types.js';

/** One `--set path=value` override. */
export interface Override {
  readonly path: string;
  readonly value: unknown;
}

/**
 * Parses `path=value`. The value is read as JSON when it is JSON (numbers,
 * true/false, null, arrays, objects) and as a plain string otherwise. JSON
 * values are held to the rules of every other JSON Locklab reads, so
 * `1e999` or a `__proto__` field is refused here as it is in a file.
 */
export function parseOverride(text: string): Override {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new InputError('--set', [{ path: '', message: `expected path=value (e.g. resource.fencing=true), got ${show(text)}` }]);
  const path = text.slice(0, eq).trim();
  const raw = text.slice(eq + 1);
  if (raw.length > LIMITS.maxScenarioBytes) {
    throw new InputError('--set', [{ path, message: `the value is ${raw.length} characters long; ${limitText('maxScenarioBytes')}` }]);
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    // Not JSON: keep it as a string, so `--set store.persistence=none` works unquoted.
    return { path, value: raw };
  }
  try {
    // The override's path names the place, so the value itself needs no name of its own.
    checkJsonValue(value, '--set', 'scenario', '');
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    throw new InputError(
      '--set',
      err.issues.map((i) => ({ path: joinPath(path, i.path), message: i.message })),
    );
  }
  return { path, value };
}

/** Splits `clients[0].acquire.mode`, `clients.A.acquire.mode` or `clients[*].ttlMs` into its steps. */
function steps(path: string): string[] {
  return path
    .replace(/\[(\*|\w[\w.-]*)\]/g, '.$1')
    .split('.')
    .filter((s) => s !== '');
}

/**
 * Applies overrides to a normalized scenario and validates the result again.
 * Every field exists after normalization, so a path that does not resolve is
 * a typo and is reported with the fields that do exist. Array items may be
 * named by index or, where they have one, by name (`clients.B.ttlMs`), and
 * `*` stands for every item (`clients[*].ttlMs`: every client's TTL).
 */
export function applyOverrides(scenario: Scenario, overrides: readonly Override[]): Scenario {
  if (overrides.length === 0) return scenario;
  // A scenario is JSON data, so a JSON round trip copies it whole; it needs no host API beyond ES2023.
  const doc = JSON.parse(JSON.stringify(scenario)) as Record<string, unknown>;
  for (const o of overrides) {
    const parts = steps(o.path);
    if (parts.length === 0) throw new InputError('--set', [{ path: o.path, message: 'is empty' }]);
    setAt(doc, parts, 0, '', o);
  }
  return normalizeScenario(doc, '--set');
}

/** Sets `o.value` at `parts[i..]` below `node`, which the path reached as `walked`. */
function setAt(node: unknown, parts: readonly string[], i: number, walked: string, o: Override): void {
  const part = parts[i]!;
  const last = i === parts.length - 1;
  const container = node as Record<string, unknown> | unknown[];
  const step = (slot: string | number): void => {
    const here = walked + (typeof slot === 'number' ? `[${slot}]` : walked === '' ? slot : `.${slot}`);
    if (last) (container as Record<string | number, unknown>)[slot] = o.value;
    else setAt((container as Record<string | number, unknown>)[slot], parts, i + 1, here, o);
  };
  if (Array.isArray(container)) {
    if (part === '*') {
      if (container.length === 0) throw new InputError('--set', [{ path: o.path, message: `${walked || 'the scenario'} has no items for * to stand for` }]);
      container.forEach((_, k) => step(k));
      return;
    }
    const byName = container.findIndex((item) => (item as { name?: unknown } | null)?.name === part);
    const slot = /^\d+$/.test(part) ? Number(part) : byName;
    if (slot === -1 || slot >= container.length) {
      const names = container.map((item, k) => (item as { name?: unknown } | null)?.name ?? k).join(', ');
      throw new InputError('--set', [
        { path: o.path, message: `${walked || 'the scenario'} has no item ${show(part)} (items: ${names === '' ? 'none' : names})` },
      ]);
    }
    step(slot);
  } else if (container !== null && typeof container === 'object') {
    if (!Object.prototype.hasOwnProperty.call(container, part)) {
      const fields = Object.keys(container).join(', ');
      throw new InputError('--set', [{ path: o.path, message: `unknown path: ${walked || 'the scenario'} has no field ${show(part)} (fields: ${fields})` }]);
    }
    step(part);
  } else {
    throw new InputError('--set', [{ path: o.path, message: `unknown path: ${walked} is ${show(container)}, not an object` }]);
  }
}
