import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { deflateRawSync } from 'node:zlib';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { InputError, show } from '../../sim/errors.js';
import { checkJsonValue, parseJson } from '../../sim/json.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { LIMITS } from '../../sim/scenario/limits.js';
import { parseOverride } from '../../sim/scenario/set.js';
import { BUILTIN_SCENARIOS } from '../../sim/scenarios/index.js';
import { runScenario } from '../../sim/run.js';
import { traceHash } from '../../sim/trace/io.js';
import { packJson } from '../../web/links/compress.js';
import { parseLink } from '../../web/links/permalink.js';
import { cli } from '../support/cli.js';

/*
 * Regressions of the JSON reader: inputs that once crashed with a stack
 * trace (nesting deeper than about 4,000 levels overflowed the parser and
 * the message formatter), or that the CLI, the lab and the library answered
 * differently (`__proto__`, a byte-order mark, 1e999).
 */

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'locklab-json-'));
});

const base = BUILTIN_SCENARIOS['pause-past-expiry'] as Record<string, unknown>;
const baseText = JSON.stringify(base);

/** The first issue's message when `f` throws an InputError; fails otherwise. */
function refused(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof InputError) return e.message;
    throw e;
  }
  throw new Error('accepted');
}

/** A value nested `depth` levels deep, built with a loop. */
function deep(depth: number, leaf: unknown = 1): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? [v] : { a: v };
  return v;
}

const deepText = (depth: number): string => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

describe('deep nesting', () => {
  for (const depth of [4_000, 5_000, 100_000]) {
    it(`a scenario file nested ${depth} levels deep is refused with the depth limit, not a stack overflow`, async () => {
      const file = join(dir, `deep-${depth}.json`);
      writeFileSync(file, `{"name":${deepText(depth)}}`);
      const r = await cli('run', file);
      expect(r.code).toBe(2);
      expect(r.err).toContain(`${file}: name`);
      expect(r.err).toContain(`(maxDepth)`);
      expect(r.err).not.toMatch(/\n\s+at /);
    });
  }

  it('a broken file nested past the limit is refused at the line and column where it passes the limit', () => {
    const text = `{"name": "x", "machines": ${'['.repeat(10_000)}`;
    expect(refused(() => parseJson(text, 'deep.json'))).toBe(
      `deep.json: not valid JSON, and nested more than ${LIMITS.maxDepth} levels deep at line 1, column ${26 + LIMITS.maxDepth}; the limit is ${LIMITS.maxDepth} levels (maxDepth)`,
    );
  });

  it('a syntax error before the nesting passes the limit is reported as the syntax error', () => {
    expect(refused(() => parseJson(`{"a": tru, "b": ${'['.repeat(5000)}`, 'x.json'))).toBe(
      'x.json: not valid JSON at line 1, column 7: an unexpected character',
    );
  });

  it('nesting exactly at the limit is read, one level more is refused', () => {
    expect(parseJson(deepText(LIMITS.maxDepth), 'ok.json')).toBeDefined();
    expect(refused(() => parseJson(deepText(LIMITS.maxDepth + 1), 'no.json'))).toContain('(maxDepth)');
  });

  it('a value from code nested 100,000 deep is refused by the library as by the reader, naming its path', () => {
    const doc = { ...base, summary: deep(100_000) };
    expect(refused(() => normalizeScenario(doc, 'lib'))).toMatch(/^lib: summary[.[\]a0]+\.\.\.: nests arrays and objects more than 64 levels deep/);
  });

  it('show() renders a value nested 100,000 deep or a million items long in a few characters', () => {
    expect(show(deep(100_000))).toBe('{"a":[{"a":[{...}]}]}');
    expect(show(Array.from({ length: 1_000_000 }, (_, i) => i))).toMatch(/^\[0,1,2,.*\.\.\.$/);
    expect(show(Array.from({ length: 1_000_000 }, (_, i) => i)).length).toBeLessThanOrEqual(60);
  });

  it('a --set value nested 5,000 deep is refused naming the override and the limit', () => {
    expect(refused(() => parseOverride(`store=${deepText(5000)}`))).toMatch(
      /^--set: store(\[0\])+\.\.\.: nests arrays and objects more than 64 levels deep.*\(maxDepth\)$/,
    );
  });

  it('a link whose scenario nests 5,000 deep is reported as damaged, naming the parameter', async () => {
    // Deflated by hand: JSON.stringify itself overflows on values this deep.
    const packed = deflateRawSync(Buffer.from(`{"name":${deepText(5000)}}`)).toString('base64url');
    const r = await parseLink(`#/lab?sc=${packed}`);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0]!.path).toBe('sc');
    expect(r.issues[0]!.message).toContain('(maxDepth)');
  });
});

describe('the same answer from every reader', () => {
  const withProto = baseText.replace('{', '{"__proto__":{"polluted":true},');

  it('a __proto__ field is refused by the file reader, a --set value, the library and a link, with one message', async () => {
    const file = join(dir, 'proto.json');
    writeFileSync(file, withProto);
    const message = 'a field may not be named "__proto__"';
    const r = await cli('run', file);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`locklab: ${file}: __proto__: ${message}\n`);
    expect(refused(() => parseOverride('store={"__proto__":{"kind":"redis"}}'))).toBe(`--set: store.__proto__: ${message}`);
    expect(refused(() => normalizeScenario(JSON.parse(withProto), 'lib'))).toBe(`lib: __proto__: ${message}`);
    const link = await parseLink(`#/lab?sc=${await packJson(JSON.parse(withProto))}`);
    expect(link.ok ? [] : link.issues.map((i) => i.message)).toEqual([expect.stringContaining(`__proto__: ${message}`)]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a deploy patch cannot reach the store through an inherited name', () => {
    const doc = JSON.parse(baseText) as Record<string, unknown>;
    doc.faults = [{ kind: 'deploy', atMs: 1, clients: ['B'], store: { constructor: 'x' } }];
    expect(refused(() => normalizeScenario(doc, 'f.json'))).toContain('f.json: faults[0].store.constructor: a deploy cannot change "constructor"');
  });

  it('a file with a UTF-8 byte-order mark is read like the same file without one', async () => {
    const plain = join(dir, 'plain.json');
    const bom = join(dir, 'bom.json');
    writeFileSync(plain, baseText);
    writeFileSync(bom, `\ufeff${baseText}`);
    const a = await cli('run', plain, '--json');
    const b = await cli('run', bom, '--json');
    expect(b.code).toBe(0);
    expect(b.out).toBe(a.out);
  });

  it('a UTF-16 file and one that is not UTF-8 are refused in words', async () => {
    const utf16 = join(dir, 'utf16.json');
    writeFileSync(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(baseText, 'utf16le')]));
    expect((await cli('run', utf16)).err).toBe(`locklab: ${utf16}: is UTF-16 text; save it as UTF-8\n`);
    const latin1 = join(dir, 'latin1.json');
    writeFileSync(latin1, Buffer.from('{"name":"caf\xe9"}', 'latin1'));
    expect((await cli('run', latin1)).err).toBe(`locklab: ${latin1}: is not UTF-8 text\n`);
  });

  it('--set with 1e999 names the override and says the number is too large, instead of "got null"', async () => {
    const r = await cli('run', 'pause-past-expiry', '--set', 'clients.B.ttlMs=1e999');
    expect(r.code).toBe(2);
    expect(r.err).toBe('locklab: --set: clients.B.ttlMs: is a number too large to represent (beyond ±1.8e308)\n');
  });

  it('a number too large in a file is refused at its path', () => {
    expect(refused(() => parseJson('{"clients":[{"ttlMs":1e999}]}', 'big.json'))).toBe(
      'big.json: clients[0].ttlMs: is a number too large to represent (beyond ±1.8e308)',
    );
  });

  it('a document that is itself a number out of range says so, having no path to name', () => {
    expect(refused(() => parseJson('1e999', 'num.json'))).toBe('num.json: the document is a number too large to represent (beyond ±1.8e308)');
  });

  it('a field with an empty or unusual name is named in brackets, never as an empty path', () => {
    const doc = { ...base, '': 1, 'a b': 2 };
    expect(refused(() => normalizeScenario(doc, 'odd.json'))).toContain('odd.json: [""]: unknown field');
    expect(refused(() => normalizeScenario(doc, 'odd.json'))).toContain('odd.json: ["a b"]: unknown field');
  });

  it('NaN and undefined from code are refused at their paths', () => {
    expect(refused(() => checkJsonValue({ a: [1, Number.NaN] }, 'lib'))).toBe('lib: a[1]: is not a number (NaN)');
    expect(refused(() => checkJsonValue({ a: { b: undefined } }, 'lib'))).toBe('lib: a.b: is undefined, which JSON cannot hold');
  });

  it('the built-in table finds no scenario named after an Object property', async () => {
    for (const name of ['constructor', '__proto__', 'toString']) {
      const r = await cli('run', name);
      expect(r.code, name).toBe(2);
      expect(r.err, name).toContain('no such file, and no built-in scenario of that name');
    }
  });

  it('a scenario read through the reader runs to the same trace as the built-in object', () => {
    const viaText = runScenario(normalizeScenario(parseJson(baseText, 'x.json'), 'x'));
    const viaValue = runScenario(normalizeScenario(base, 'x'));
    expect(traceHash(viaText)).toBe(traceHash(viaValue));
  });
});

describe('sizes', () => {
  it('text longer than the scenario limit is refused naming the limit', () => {
    const text = `{"name":"${'x'.repeat(LIMITS.maxScenarioBytes)}"}`;
    expect(refused(() => parseJson(text, 'huge.json'))).toMatch(
      /^huge\.json: is 1,048,5\d\d characters long; the limit is 1,048,576 bytes \(maxScenarioBytes\)$/,
    );
  });

  it('a scenario file over the byte limit is refused before it is read', async () => {
    const file = join(dir, 'big.json');
    writeFileSync(file, Buffer.alloc(LIMITS.maxScenarioBytes + 1, 0x20));
    const r = await cli('run', file);
    expect(r.err).toBe(`locklab: ${file}: is 1,048,577 bytes; the limit is 1,048,576 bytes (maxScenarioBytes)\n`);
  });
});
