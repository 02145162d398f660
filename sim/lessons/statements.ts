import { EXPECT_NAMES } from './expect.js';
import type { Expect } from './types.js';

/*
 * The inner shape of each statement of the assertion vocabulary. The JSON
 * Schema only says "an object with one key"; this says, for a wrong one,
 * exactly which key or field is wrong and what was expected.
 */

type Issue = { path: string; message: string };

const OUTCOMES = ['safe', 'fenced', 'unsafe'];
const STOPS = ['completed', 'event-budget', 'time-budget'];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function fields(
  v: Record<string, unknown>,
  path: string,
  allowed: Record<string, 'string' | 'number' | 'boolean' | 'range' | 'pair' | 'query'>,
  required: string[],
  out: Issue[],
): void {
  for (const r of required) if (!(r in v)) out.push({ path: `${path}.${r}`, message: 'is required but missing' });
  for (const [k, value] of Object.entries(v)) {
    const type = allowed[k];
    if (type === undefined) {
      out.push({ path: `${path}.${k}`, message: `unknown field; expected one of: ${Object.keys(allowed).join(', ')}` });
      continue;
    }
    const at = `${path}.${k}`;
    if (type === 'range') {
      if (!isObject(value) || Object.keys(value).some((f) => f !== 'minMs' && f !== 'maxMs') || Object.values(value).some((n) => typeof n !== 'number'))
        out.push({ path: at, message: 'expected { minMs, maxMs } with numbers (either may be left out)' });
    } else if (type === 'pair') {
      if (!Array.isArray(value) || value.length !== 2 || value.some((s) => typeof s !== 'string'))
        out.push({ path: at, message: 'expected two client names, e.g. [A, B]' });
    } else if (type === 'query') {
      if (!isObject(value)) out.push({ path: at, message: 'expected an event query, e.g. { kind: acquire.ok, actor: B }' });
    } else if (typeof value !== type) out.push({ path: at, message: `expected a ${type}, got ${JSON.stringify(value)}` });
  }
}

/** Problems with one statement's shape; empty when it is well formed. */
export function statementIssues(x: unknown, path: string): Issue[] {
  const out: Issue[] = [];
  if (!isObject(x) || Object.keys(x).length !== 1) return [{ path, message: `expected an object with one of: ${EXPECT_NAMES.join(', ')}` }];
  const [name, v] = Object.entries(x)[0]!;
  const at = `${path}.${name}`;
  switch (name) {
    case 'outcome': {
      const list = Array.isArray(v) ? v : [v];
      if (list.length === 0 || list.some((o) => typeof o !== 'string' || !OUTCOMES.includes(o)))
        out.push({ path: at, message: `expected one of ${OUTCOMES.join(', ')} (or a list of them), got ${JSON.stringify(v)}` });
      break;
    }
    case 'stopped':
      if (typeof v !== 'string' || !STOPS.includes(v)) out.push({ path: at, message: `expected one of ${STOPS.join(', ')}, got ${JSON.stringify(v)}` });
      break;
    case 'doubleOwnership':
      if (v !== 'none') {
        if (!isObject(v)) out.push({ path: at, message: 'expected none, or { clients: [A, B], from?, lasting? }' });
        else fields(v, at, { clients: 'pair', from: 'range', lasting: 'range' }, ['clients'], out);
      }
      break;
    case 'staleWrite':
      if (v !== 'none') {
        if (!isObject(v)) out.push({ path: at, message: 'expected none, or { client, fence?, accepted }' });
        else fields(v, at, { client: 'string', fence: 'number', accepted: 'boolean' }, ['client', 'accepted'], out);
      }
      break;
    case 'rejectedWrite':
      if (!isObject(v)) out.push({ path: at, message: 'expected { client, fence?, highest?, reason? }' });
      else fields(v, at, { client: 'string', fence: 'number', highest: 'number', reason: 'string' }, ['client'], out);
      break;
    case 'lostLock':
      if (v !== 'none') {
        if (!isObject(v)) out.push({ path: at, message: 'expected none, or { client, how? }' });
        else fields(v, at, { client: 'string', how: 'string' }, ['client'], out);
      }
      break;
    case 'event':
    case 'noEvent':
      if (!isObject(v)) out.push({ path: at, message: 'expected an event query, e.g. { kind: acquire.ok, actor: B }' });
      break;
    case 'gap':
      if (!isObject(v)) out.push({ path: at, message: 'expected { from: query, to: query, minMs?, maxMs? }' });
      else fields(v, at, { from: 'query', to: 'query', minMs: 'number', maxMs: 'number' }, ['from', 'to'], out);
      break;
    case 'writes':
      if (!isObject(v)) out.push({ path: at, message: 'expected { client?, accepted?, rejected? }' });
      else fields(v, at, { client: 'string', accepted: 'number', rejected: 'number' }, [], out);
      break;
    case 'unprotectedWrite':
      if (v !== 'none') {
        if (!isObject(v)) out.push({ path: at, message: 'expected none, or { client }' });
        else fields(v, at, { client: 'string' }, ['client'], out);
      }
      break;
    case 'lockOut':
      if (!isObject(v)) out.push({ path: at, message: 'expected { client, minMs?, maxMs? }' });
      else fields(v, at, { client: 'string', minMs: 'number', maxMs: 'number' }, ['client'], out);
      break;
    default:
      out.push({ path: at, message: `unknown statement; expected one of: ${EXPECT_NAMES.join(', ')}` });
  }
  return out;
}

/** The event queries inside a statement, with their paths, so the loader can check their shape too. */
export function queriesOf(x: Expect, path: string): { path: string; query: unknown }[] {
  if ('event' in x) return [{ path: `${path}.event`, query: x.event }];
  if ('noEvent' in x) return [{ path: `${path}.noEvent`, query: x.noEvent }];
  if ('gap' in x)
    return [
      { path: `${path}.gap.from`, query: x.gap.from },
      { path: `${path}.gap.to`, query: x.gap.to },
    ];
  return [];
}
