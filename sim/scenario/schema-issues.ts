import type { ErrorObject, ValidateFunction } from 'ajv';
import { show, type InputIssue } from '../errors.js';
import { fieldPath, joinPath, pointerToPath } from './jsonpath.js';
import { grouped, LIMITS, limitText, type LimitName } from './limits.js';

/*
 * Ajv's errors in words: each issue names the JSON path and says what was
 * expected. Apart from Ajv itself (sim/scenario/schema-check.ts compiles with
 * it), so that a validator compiled beforehand is used without loading it.
 */

/**
 * The check of `schema` by a validator compiled from it, beforehand
 * (sim/scenario/validators.generated.js, sim/trace/validators.generated.js)
 * or by `compileSchema`: its errors as issues.
 */
export function checkWith(validate: ValidateFunction, schema: object): (data: unknown) => InputIssue[] {
  return (data) => {
    if (validate(data)) return [];
    return describeErrors(validate.errors ?? [], schema);
  };
}

/** A schema with one long list (a trace's events) in two parts: the document with the list as a bare array, and one item of the list. */
export function listParts(schema: Record<string, unknown>, list: string): { outer: Record<string, unknown>; item: Record<string, unknown> } {
  const props = schema.properties as Record<string, { items?: object }>;
  return {
    outer: { ...schema, properties: { ...props, [list]: { type: 'array' } } },
    item: { ...props[list]!.items, definitions: schema.definitions },
  };
}

/**
 * The check of a document with one long list, from its two parts (see
 * `listParts`): the list's items are checked one at a time, and once
 * `maxIssuesShown` issues are found the rest of the list is only counted,
 * with `quick` (a validator that stops at the first error, asked for only
 * then), so a large bad document costs no more memory than a good one.
 */
export function checkListWith(
  outer: (data: unknown) => InputIssue[],
  item: ValidateFunction,
  itemSchema: object,
  list: string,
  quick: () => ValidateFunction,
): (data: unknown) => { issues: InputIssue[]; more: number } {
  return (data) => {
    const issues = outer(data);
    let more = 0;
    const items = (data as Record<string, unknown> | null)?.[list];
    if (!Array.isArray(items)) return { issues, more };
    for (let i = 0; i < items.length; i++) {
      if (issues.length >= LIMITS.maxIssuesShown) {
        if (!quick()(items[i])) more++;
        continue;
      }
      if (item(items[i])) continue;
      for (const issue of describeErrors(item.errors ?? [], itemSchema)) issues.push({ path: joinPath(`${list}[${i}]`, issue.path), message: issue.message });
    }
    return { issues, more };
  };
}

/** Ajv's errors as issues, each said once, in order. */
export function describeErrors(errors: readonly ErrorObject[], root: object): InputIssue[] {
  const issues: InputIssue[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    const issue = describe(e, root);
    if (issue === undefined) continue;
    const id = `${issue.path}\u0000${issue.message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    issues.push(issue);
  }
  return issues;
}

function describe(e: ErrorObject, root: object): InputIssue | undefined {
  const path = pointerToPath(e.instancePath);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return { path: fieldPath(path, String(p.missingProperty)), message: 'is required but missing' };
    case 'additionalProperties': {
      const extra = String(p.additionalProperty);
      const props = Object.keys((e.parentSchema as { properties?: object } | undefined)?.properties ?? {}).filter((k) => k !== '$schema');
      const near = nearestField(extra, props);
      return {
        path: fieldPath(path, extra),
        message: `unknown field; expected one of: ${props.join(', ')}${near === undefined ? '' : `; did you mean ${show(near)}?`}`,
      };
    }
    case 'discriminator': {
      const tag = String(p.tag);
      if (p.error === 'tag') return { path: fieldPath(path, tag), message: 'is required and must be a string' };
      const kinds = kindsOf(e.parentSchema, root, tag);
      const what = tag === 'step' ? 'step' : path.startsWith('faults') ? 'fault kind' : path.startsWith('store') ? 'store kind' : 'kind';
      return { path: fieldPath(path, tag), message: `unknown ${what} ${show(p.tagValue)}; expected one of: ${kinds.join(', ')}` };
    }
    case 'type': {
      const expected = String(p.type).replace(',', ' or ');
      return { path, message: `expected ${article(expected)}, got ${show(e.data)}${inMilliseconds(path, e.data)}` };
    }
    case 'enum':
      return { path, message: `expected one of ${(p.allowedValues as unknown[]).map((v) => show(v)).join(', ')}, got ${show(e.data)}` };
    case 'const':
      return { path, message: `expected ${show(p.allowedValue)}, got ${show(e.data)}` };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      // The smallest duration is the clock's resolution; say so, or 0.0001 ms looks like a fine value.
      const why = e.keyword === 'minimum' && p.limit === 0.001 ? " (1 µs: the simulation's time resolution)" : '';
      const unit = unitOf(path);
      const limit = Number.isInteger(p.limit) ? grouped(p.limit as number) : String(p.limit);
      const got = typeof e.data === 'number' ? `${show(e.data)}${unit}` : show(e.data);
      return { path, message: `must be ${COMPARISON[String(p.comparison)] ?? String(p.comparison)} ${limit}${unit}${why}, got ${got}` };
    }
    case 'maxItems': {
      const name = (e.parentSchema as { 'x-limit'?: LimitName } | undefined)?.['x-limit'];
      const count = Array.isArray(e.data) ? `has ${grouped(e.data.length)} items; ` : '';
      return { path, message: name === undefined ? `${count}must have at most ${String(p.limit)} items` : `${count}${limitText(name)}` };
    }
    case 'minItems':
      return { path, message: `needs at least ${String(p.limit)} item${p.limit === 1 ? '' : 's'}` };
    case 'minLength':
      return { path, message: 'must not be empty' };
    case 'maxLength': {
      const name = (e.parentSchema as { 'x-limit'?: LimitName } | undefined)?.['x-limit'];
      const count = typeof e.data === 'string' ? `has ${grouped(e.data.length)} characters; ` : '';
      return { path, message: name === undefined ? `must be at most ${String(p.limit)} characters` : `${count}${limitText(name)}` };
    }
    case 'pattern':
      return { path, message: `expected a name of letters, digits, '_', '.' or '-' (at most 40), got ${show(e.data)}` };
    case 'oneOf':
    case 'if':
      // The branch's own errors say more; this summary adds nothing.
      return undefined;
    default:
      return { path, message: e.message ?? 'is not valid' };
  }
}

const UNIT_MS: Readonly<Record<string, number>> = { us: 0.001, µs: 0.001, ms: 1, s: 1000, sec: 1000, m: 60_000, min: 60_000, h: 3_600_000 };

/** For a duration field given a number with a unit ("30s", "1.5 min"), the hint that durations are bare milliseconds, with the number to write. */
function inMilliseconds(path: string, value: unknown): string {
  if (unitOf(path) !== ' ms' || typeof value !== 'string') return '';
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zµ]+)\s*$/i.exec(value);
  const factor = m === null ? undefined : UNIT_MS[m[2]!.toLowerCase()];
  if (factor === undefined) return '';
  return `: durations are in milliseconds, so write ${Number((Number(m![1]) * factor).toFixed(3))}`;
}

const COMPARISON: Readonly<Record<string, string>> = { '>=': 'at least', '<=': 'at most', '>': 'more than', '<': 'less than' };

/** The unit a field's name ends in (`ttlMs`, `ttlMonitorSec`, `clockDriftPpm`…), as a limit and a value are said in it. */
function unitOf(path: string): string {
  const field = /(\w+)(\[\d+\])*$/.exec(path)?.[1] ?? '';
  if (/Ms$/.test(field)) return ' ms';
  if (/Us$/.test(field)) return ' µs';
  if (/(Sec|Seconds)$/.test(field)) return ' s';
  if (/Ppm$/.test(field)) return ' ppm';
  if (/Bytes$/.test(field)) return ' bytes';
  return '';
}

function article(type: string): string {
  if (type === 'integer') return 'an integer';
  if (type === 'array') return 'an array';
  if (type === 'object') return 'an object';
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** The values of the tag (`kind`, `step`) that a discriminated oneOf accepts, read from its branches. */
function kindsOf(schema: unknown, root: object, tag: string): string[] {
  const branches = (schema as { oneOf?: Array<{ $ref?: string }> } | undefined)?.oneOf ?? [];
  return branches.map((b) => {
    let node: unknown = b;
    if (b.$ref !== undefined) {
      node = root;
      for (const part of b.$ref.replace(/^#\//, '').split('/')) node = (node as Record<string, unknown>)[part];
    }
    const kind = (node as { properties?: Record<string, { const?: string } | undefined> }).properties?.[tag]?.const;
    return kind ?? '?';
  });
}

/**
 * The field a hand-written name most likely meant, if one is close: the same
 * but for case ("ttlMS"), a duration named without its unit or in seconds
 * ("ttl", "ttlSec": durations are "...Ms"), or a letter or two off
 * ("persistance").
 */
export function nearestField(name: string, fields: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const same = fields.find((f) => f.toLowerCase() === lower);
  if (same !== undefined) return same;
  const stem = lower.replace(/(seconds|secs|sec|s|millis|ms)$/, '');
  const inMs = fields.find((f) => f.endsWith('Ms') && (f.slice(0, -2).toLowerCase() === stem || f.slice(0, -2).toLowerCase() === lower));
  if (inMs !== undefined) return inMs;
  const most = name.length >= 5 ? 2 : 1;
  let best: string | undefined;
  let bestDistance = most + 1;
  for (const f of fields) {
    const d = editDistance(lower, f.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [f, d];
  }
  return best;
}

/** Levenshtein distance, with a swap of two neighbours counted as one edit. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const up = rows[i - 1]!;
      let d = Math.min(up[j]! + 1, row[j - 1]! + 1, up[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      row.push(d);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}
