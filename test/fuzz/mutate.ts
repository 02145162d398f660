import fc from 'fast-check';

/*
 * Mutators for the fuzzer: they take a valid document (a scenario, a trace)
 * or its text and damage it the ways people and tools do — a field deleted
 * or renamed, a value of the wrong type or out of range, keys reordered, a
 * file cut short, nested too deep, a byte-order mark, `__proto__`. Every
 * mutation is data drawn by fast-check, so a failing case shrinks and its
 * seed reproduces it.
 */

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Numbers at the edges: the resolution, the safe-integer boundary, the schema's maxima, the largest doubles. */
export const EDGE_NUMBERS: readonly number[] = [
  0,
  -0,
  1,
  -1,
  0.0001,
  0.0004,
  0.0005,
  0.001,
  1e-7,
  0.5,
  2 ** 31,
  2 ** 32,
  2 ** 32 - 1,
  2 ** 52,
  2 ** 53 - 1,
  2 ** 53,
  2 ** 53 + 2,
  1e15,
  1e16,
  3.1536e10,
  3.1536e10 + 1,
  1e21,
  1e300,
  1e308,
  -1e308,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  100_000_000,
];

/** Strings people type by mistake, and strings meant to hurt. */
const EDGE_STRINGS: readonly string[] = [
  '',
  ' ',
  'A',
  'db',
  'redis',
  'job',
  '__proto__',
  'constructor',
  'null',
  '1e999',
  '-',
  '../x',
  '/dev/zero',
  '\u0000',
  '\ud800',
  'é',
  '💥',
];

/** A JSON value drawn from the edges, from plain random values, or big and deep. */
export const edgeValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<Json>(...EDGE_NUMBERS) },
  { weight: 2, arbitrary: fc.constantFrom<Json>(...EDGE_STRINGS) },
  { weight: 2, arbitrary: fc.constantFrom<Json>(null, true, false, [], {}, [null], { kind: 'pause' }) },
  { weight: 2, arbitrary: fc.double() as fc.Arbitrary<Json> },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 300 }).map((n) => 'x'.repeat(n * 10)) },
  { weight: 1, arbitrary: fc.integer({ min: 60, max: 1500 }).map((d) => nested(d)) },
  { weight: 1, arbitrary: fc.integer({ min: 900, max: 5000 }).map((n) => Array.from({ length: n }, () => ({ kind: 'pause' }) as Json)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> },
);

function nested(depth: number): Json {
  let v: Json = 1;
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? [v] : { a: v };
  return v;
}

/** One damage done to a JSON value. `pick` chooses the place among all places in the document. */
export type ValueMutation =
  | { op: 'set'; pick: number; value: Json }
  | { op: 'delete'; pick: number }
  | { op: 'rename'; pick: number; to: string }
  | { op: 'add'; pick: number; key: string; value: Json }
  | { op: 'duplicate'; pick: number }
  | { op: 'reorder'; pick: number; seed: number };

export const valueMutation: fc.Arbitrary<ValueMutation> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('set' as const), pick: fc.nat(), value: edgeValue }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('rename' as const), pick: fc.nat(), to: fc.constantFrom('__proto__', 'constructor', 'name', 'kind', 'x', 'ttlMS') }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('add' as const),
      pick: fc.nat(),
      key: fc.constantFrom('__proto__', 'extra', 'name', '$schema', 'toString'),
      value: edgeValue,
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('duplicate' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('reorder' as const), pick: fc.nat(), seed: fc.nat() }) },
);

interface Place {
  parent: Json[] | { [k: string]: Json } | null;
  key: string | number;
  value: Json;
}

/** Every place in a value, parents before children, with a loop (values may be deep). */
function places(root: Json, limit = 5000): Place[] {
  const out: Place[] = [{ parent: null, key: '', value: root }];
  for (let i = 0; i < out.length && out.length < limit; i++) {
    const v = out[i]!.value;
    if (Array.isArray(v)) v.forEach((child, k) => out.push({ parent: v, key: k, value: child }));
    else if (v !== null && typeof v === 'object') for (const [k, child] of Object.entries(v)) out.push({ parent: v, key: k, value: child });
  }
  return out;
}

/** A deep copy made with a loop: structuredClone recurses, and these values may nest thousands deep. */
export function cloneJson<T>(value: T): T {
  const root: { v?: unknown } = {};
  const stack: Array<{ from: unknown; into: Record<string | number, unknown>; slot: string | number }> = [{ from: value, into: root, slot: 'v' }];
  while (stack.length > 0) {
    const { from, into, slot } = stack.pop()!;
    if (from === null || typeof from !== 'object') {
      setOwn(into as { [k: string]: Json }, slot as string, from as Json);
    } else if (Array.isArray(from)) {
      const copy: unknown[] = new Array<unknown>(from.length);
      into[slot] = copy;
      from.forEach((item, i) => stack.push({ from: item, into: copy as unknown as Record<number, unknown>, slot: i }));
    } else {
      const copy: Record<string, unknown> = {};
      setOwn(into as { [k: string]: Json }, slot as string, copy as Json);
      for (const k of Object.keys(from)) copy[k] = null;
      for (const k of Object.keys(from)) stack.push({ from: (from as Record<string, unknown>)[k], into: copy, slot: k });
    }
  }
  return root.v as T;
}

function setOwn(obj: { [k: string]: Json }, key: string, value: Json): void {
  // defineProperty, so `__proto__` becomes an own field as JSON.parse would make it, not the prototype.
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Applies mutations to a copy of `doc`. */
export function mutateValue(doc: unknown, mutations: readonly ValueMutation[]): Json {
  const root: { v: Json } = { v: cloneJson(doc) as Json };
  for (const m of mutations) {
    const all = places(root.v);
    const place = all[m.pick % all.length]!;
    const replace = (value: Json): void => {
      if (place.parent === null) root.v = value;
      else if (Array.isArray(place.parent)) place.parent[place.key as number] = value;
      else setOwn(place.parent, place.key as string, value);
    };
    switch (m.op) {
      case 'set':
        replace(cloneJson(m.value));
        break;
      case 'delete':
        if (Array.isArray(place.parent)) place.parent.splice(place.key as number, 1);
        else if (place.parent !== null) delete place.parent[place.key as string];
        break;
      case 'rename':
        if (place.parent !== null && !Array.isArray(place.parent)) {
          delete place.parent[place.key as string];
          setOwn(place.parent, m.to, place.value);
        }
        break;
      case 'add':
        if (place.value !== null && typeof place.value === 'object' && !Array.isArray(place.value)) setOwn(place.value, m.key, cloneJson(m.value));
        else if (Array.isArray(place.value)) place.value.push(cloneJson(m.value));
        break;
      case 'duplicate':
        if (Array.isArray(place.parent)) place.parent.splice(place.key as number, 0, cloneJson(place.value));
        break;
      case 'reorder':
        if (place.value !== null && typeof place.value === 'object') replace(shuffledKeys(place.value, m.seed) as Json);
        break;
    }
  }
  return root.v;
}

/** A copy of `value` whose objects list their keys in another order (every level), drawn from `seed`. */
export function shuffledKeys(value: unknown, seed: number): unknown {
  let state = seed >>> 0 || 1;
  const next = (): number => {
    // xorshift32: a tiny seeded shuffle that needs nothing but the seed.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== 'object') return v;
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [keys[i], keys[j]] = [keys[j]!, keys[i]!];
    }
    const out: Record<string, unknown> = {};
    for (const k of keys) setOwn(out as { [k: string]: Json }, k, walk((v as Record<string, unknown>)[k]) as Json);
    return out;
  };
  return walk(value);
}

/** One damage done to a document's text. `at` is a position, taken modulo the text's length. */
export type TextMutation =
  | { op: 'insert'; at: number; text: string }
  | { op: 'delete'; at: number; length: number }
  | { op: 'truncate'; at: number }
  | { op: 'wrap'; depth: number }
  | { op: 'bom' }
  | { op: 'number'; at: number; text: string }
  | { op: 'proto' };

const TOKENS = [
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  '"',
  '\\',
  '\n',
  '/*',
  '//',
  'null',
  'true',
  '1e999',
  '-',
  '0x1',
  'NaN',
  '\u0000',
  '\ufeff',
  '\ud800',
  '"__proto__":1,',
];

export const textMutation: fc.Arbitrary<TextMutation> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ op: fc.constant('insert' as const), at: fc.nat(), text: fc.oneof(fc.constantFrom(...TOKENS), fc.string({ maxLength: 4 })) }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 20 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('wrap' as const), depth: fc.integer({ min: 30, max: 8000 }) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'bom' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('number' as const),
      at: fc.nat(),
      text: fc.constantFrom('1e999', '-1e999', '1e308', '9007199254740993', '0.0000001', '-0', '1E400'),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ op: 'proto' as const }) },
);

export function mutateText(text: string, mutations: readonly TextMutation[]): string {
  let t = text;
  for (const m of mutations) {
    const pos = (n: number): number => (t.length === 0 ? 0 : n % (t.length + 1));
    switch (m.op) {
      case 'insert': {
        const p = pos(m.at);
        t = t.slice(0, p) + m.text + t.slice(p);
        break;
      }
      case 'delete': {
        const p = pos(m.at);
        t = t.slice(0, p) + t.slice(p + m.length);
        break;
      }
      case 'truncate':
        t = t.slice(0, pos(m.at));
        break;
      case 'wrap':
        t = '['.repeat(m.depth) + t + ']'.repeat(m.depth);
        break;
      case 'bom':
        t = `\ufeff${t}`;
        break;
      case 'number': {
        // Replace the number nearest after the position, if there is one.
        const re = /-?\d+(\.\d+)?([eE][+-]?\d+)?/g;
        re.lastIndex = pos(m.at);
        const found = re.exec(t) ?? /-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(t);
        if (found !== null) t = t.slice(0, found.index) + m.text + t.slice(found.index + found[0].length);
        break;
      }
      case 'proto': {
        const p = t.indexOf('{');
        if (p !== -1) t = `${t.slice(0, p + 1)}"__proto__":{"polluted":true},${t.slice(p + 1)}`;
        break;
      }
    }
  }
  return t;
}
