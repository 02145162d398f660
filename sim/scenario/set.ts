import { InputError, show, type InputIssue } from '../errors.js';
import { checkJsonValue } from '../json.js';
import { joinPath } from './jsonpath.js';
import { LIMITS, limitText } from './limits.js';
import { nearestField } from './schema-issues.js';
import { LIFECYCLE_DEFAULTS, normalizeScenario } from './normalize.js';
import { WORK_MS_DEFAULT, type Scenario } from './types.js';

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
 * Every field with a default exists after normalization, so a path through
 * one that does not resolve is a typo and is reported with the fields that
 * do exist; the last step may also name an optional field the scenario left
 * out (a client's `workTime`, `pauseAfterAcquire`, `crashRatePerS`), which
 * the schema then judges like any other. Array items may be named by index
 * or, where they have one, by name (`clients.B.ttlMs`), and `*` stands for
 * every item (`clients[*].ttlMs`: every client's TTL).
 *
 * An override of a `kind` (the store's, a fault's) first takes away the
 * fields that only held the old kind's defaults, so the new kind gets its
 * own (`--set store.kind=memcached` on a Redis scenario drops Redis's
 * persistence and name); a field the scenario chose itself stays, and the
 * new kind is held to it.
 */
export function applyOverrides(scenario: Scenario, overrides: readonly Override[]): Scenario {
  if (overrides.length === 0) return scenario;
  // A scenario is JSON data, so a JSON round trip copies it whole; it needs no host API beyond ES2023.
  const doc = JSON.parse(JSON.stringify(scenario)) as Record<string, unknown>;
  const rekinded = new Map<string, Record<string, unknown>>();
  const added = new Map<string, Override>();
  const set = new Map<string, Override>();
  for (const o of overrides) {
    const parts = steps(o.path);
    if (parts.length === 0) throw new InputError('--set', [{ path: o.path, message: 'is empty' }]);
    setAt(doc, parts, 0, '', [], o, doc, { rekinded, added, set });
  }
  // A field the new kind does not have at all cannot apply to it, whoever chose it: it goes (the schema names each).
  for (;;) {
    try {
      return normalizeScenario(doc, '--set');
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      const typo = err.issues.find((i) => added.has(i.path) && i.message.startsWith('unknown field'));
      if (typo !== undefined) {
        // A field this object does not have: said with the path as the user wrote it, and the fields it does have.
        const dot = typo.path.lastIndexOf('.');
        const [fields, near] = typo.message.replace(/^unknown field; expected one of: /, '').split('; did you mean ');
        throw new InputError('--set', [
          {
            path: added.get(typo.path)!.path,
            message: `unknown path: ${typo.path.slice(0, dot)} has no field ${show(typo.path.slice(dot + 1))} (fields: ${fields})${near === undefined ? '' : `; did you mean ${near}`}`,
          },
        ]);
      }
      if (!dropUnknownFields(err, rekinded)) throw asWritten(err, set);
    }
  }
}

/**
 * A bad value an override set, said with the path as the user wrote it and
 * once, though `clients[*].ttlMs` set it on every client.
 */
function asWritten(err: InputError, set: ReadonlyMap<string, Override>): InputError {
  if (!err.issues.some((i) => set.has(i.path))) return err;
  const said = new Map<string, InputIssue>();
  for (const issue of err.issues) {
    const o = set.get(issue.path);
    const mine = o === undefined ? issue : { path: o.path, message: issue.message };
    said.set(`${mine.path}\0${mine.message}`, mine);
  }
  return new InputError(err.source, [...said.values()], err.more);
}

/** Deletes each field `err` calls unknown on an object whose kind was changed; returns whether it deleted any. */
function dropUnknownFields(err: InputError, rekinded: ReadonlyMap<string, Record<string, unknown>>): boolean {
  let dropped = false;
  for (const issue of err.issues) {
    if (!issue.message.startsWith('unknown field')) continue;
    const dot = issue.path.lastIndexOf('.');
    const obj = rekinded.get(issue.path.slice(0, dot));
    const field = issue.path.slice(dot + 1);
    if (obj === undefined || !(field in obj)) continue;
    delete obj[field];
    dropped = true;
  }
  return dropped;
}

/**
 * What a client's field replaces when an override sets it: a drawn work
 * time replaces workMs, and steps replace every lifecycle field (the
 * normalizer refuses both side by side, and --set has no way to unset one).
 * Not the other way round: a workMs set on a client whose work time is
 * drawn is refused, naming workTime, as a sweep over it would be flat.
 */
function replaced(client: Record<string, unknown>, field: Slot, value: unknown): void {
  if (field === 'workTime' && value !== null && value !== undefined) client.workMs = WORK_MS_DEFAULT;
  if (field === 'steps' && value !== null) {
    for (const [f, fallback] of LIFECYCLE_DEFAULTS) client[f] = JSON.parse(JSON.stringify(fallback)) as unknown;
    delete client.workTime;
    delete client.pauseAfterAcquire;
  }
}

type Slot = string | number;

/** What overrides did besides set values: the objects whose kind they changed, and the fields they added (by path, with the override). */
interface Seen {
  readonly rekinded: Map<string, Record<string, unknown>>;
  readonly added: Map<string, Override>;
  /** Every field an override set, by its path in the scenario, for a bad value to be said as the override wrote it. */
  readonly set: Map<string, Override>;
}

/** Sets `o.value` at `parts[i..]` below `node`, which the path reached as `walked` (in words) and `at` (its keys), in `root`. */
function setAt(
  node: unknown,
  parts: readonly string[],
  i: number,
  walked: string,
  at: readonly Slot[],
  o: Override,
  root: Record<string, unknown>,
  seen: Seen,
): void {
  const part = parts[i]!;
  const last = i === parts.length - 1;
  const container = node as Record<string, unknown> | unknown[];
  const step = (slot: Slot): void => {
    const here = walked + (typeof slot === 'number' ? `[${slot}]` : walked === '' ? slot : `.${slot}`);
    const target = container as Record<Slot, unknown>;
    if (!last) return setAt(target[slot], parts, i + 1, here, [...at, slot], o, root, seen);
    if (!Array.isArray(container)) {
      if (!(slot in container)) seen.added.set(here, o);
      if (slot === 'kind' && target.kind !== o.value) {
        dropDefaults(root, at, container);
        seen.rekinded.set(walked, container);
      }
      if (at.length === 2 && at[0] === 'clients') replaced(container, slot, o.value);
    }
    seen.set.set(here, o);
    target[slot] = o.value;
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
    // The last step may add a field the scenario left out: the schema says below whether this object has it.
    if (!last && !Object.prototype.hasOwnProperty.call(container, part)) {
      const near = nearestField(part, Object.keys(container));
      const fields = Object.keys(container).join(', ');
      throw new InputError('--set', [
        {
          path: o.path,
          message: `unknown path: ${walked || 'the scenario'} has no field ${show(part)} (fields: ${fields})${near === undefined ? '' : `; did you mean ${show(near)}?`}`,
        },
      ]);
    }
    step(part);
  } else {
    throw new InputError('--set', [{ path: o.path, message: `unknown path: ${walked} is ${show(container)}, not an object` }]);
  }
}

/**
 * Takes from `obj` (at `at` in `root`, a normalized scenario) every field
 * that only holds its default: one that normalization gives the same value
 * when it is left out. What the scenario chose itself stays.
 */
function dropDefaults(root: Record<string, unknown>, at: readonly Slot[], obj: Record<string, unknown>): void {
  for (const field of Object.keys(obj)) {
    if (field === 'kind') continue;
    const value = obj[field];
    delete obj[field];
    let fallback: unknown;
    try {
      fallback = valueAt(normalizeScenario(JSON.parse(JSON.stringify(root)), '--set'), [...at, field]);
    } catch {
      // Without it the scenario is not valid: it is no default.
      fallback = undefined;
    }
    if (fallback === undefined || JSON.stringify(fallback) !== JSON.stringify(value)) obj[field] = value;
  }
}

/** The value at `at` in `root`, or undefined where the path leads nowhere. */
function valueAt(root: unknown, at: readonly Slot[]): unknown {
  let node = root;
  for (const slot of at) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<Slot, unknown>)[slot];
  }
  return node;
}
