import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { visit } from 'unist-util-visit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenario } from '../sim/run.js';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import { BUILTIN_SCENARIOS } from '../sim/scenarios/index.js';
import { traceHash } from '../sim/trace/io.js';

/*
 * The package as a user gets it: `npm pack` (which builds it through
 * `prepare`), installed from the tarball into an empty project, used from
 * plain Node, from the shell, from TypeScript and from a Vitest suite.
 */

const root = new URL('..', import.meta.url).pathname;
const tmp = mkdtempSync(join(tmpdir(), 'locklab-package-'));
const app = join(tmp, 'app');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface PackedFile {
  path: string;
  size: number;
}
interface PackResult {
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: PackedFile[];
}

/** Runs a command to the end (bounded in time), failing the test with its output when it fails. */
function run(command: string, args: string[], options: SpawnSyncOptions = {}): string {
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: 180_000, stdio: ['ignore', 'pipe', 'pipe'], ...options });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${r.status ?? r.signal}:\n${String(r.stdout)}\n${String(r.stderr)}`);
  return String(r.stdout);
}

const npm = (args: string[], cwd: string): string => run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd });

let listed: PackResult;
let tarball: string;

beforeAll(() => {
  // The dry run builds the package, as publishing would; the real pack then takes what it built.
  listed = (JSON.parse(npm(['pack', '--dry-run', '--json'], root)) as PackResult[])[0]!;
  const [packed] = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], root)) as PackResult[];
  tarball = join(tmp, packed!.filename);
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  npm(['install', '--prefer-offline', tarball], app);
}, 300_000);

const expectedHash = (): string => traceHash(runScenario(normalizeScenario(BUILTIN_SCENARIOS['pause-past-expiry'], 'x')));

describe('npm pack', () => {
  it('ships the library, its declarations, the command and the JSON schemas', () => {
    const paths = listed.files.map((f) => f.path);
    for (const p of [
      'package.json',
      'README.md',
      'dist/lib/index.js',
      'dist/lib/testing.js',
      'dist/lib/cli.js',
      'dist/lib/licenses/jsonc-parser.txt',
      'dist/lib/licenses/@noble__hashes.txt',
      'sim/cli/bin.mjs',
      'dist/types/index.d.ts',
      'dist/types/testing/vitest.d.ts',
      'dist/types/trace/types.d.ts',
      'dist/types/stores/types.d.ts',
      'docs/schema/scenario.schema.json',
      'docs/schema/trace.schema.json',
      'docs/api.md',
      'docs/testing.md',
    ])
      expect(paths).toContain(p);
  });

  it('ships no tests, web sources, benches, TypeScript sources or build scripts', () => {
    const allowed =
      /^(package\.json|README\.md|LICENSE|docs\/decisions\/[\w-]+\.md|sim\/cli\/bin\.mjs|dist\/lib\/.+\.js|dist\/lib\/real\/(reaper\.mjs|driver\.php)|dist\/lib\/licenses\/[\w@-]+\.txt|dist\/types\/.+\.d\.ts|docs\/schema\/.+\.json|docs\/[\w-]+\.md)$/;
    expect(listed.files.map((f) => f.path).filter((p) => !allowed.test(p))).toEqual([]);
    expect(listed.files.some((f) => /^(test|web|bench|scripts|lessons)\//.test(f.path) || f.path.startsWith('docs/examples/'))).toBe(false);
  });
});

describe('the documents in the package', () => {
  it('link only to files the package holds, and carry the license package.json names', () => {
    const shipped = new Set(listed.files.map((f) => f.path));
    const broken: string[] = [];
    for (const doc of [...shipped].filter((p) => p.endsWith('.md'))) {
      const tree = unified()
        .use(remarkParse)
        .parse(readFileSync(join(root, doc), 'utf8'));
      visit(tree, ['link', 'definition'], (node) => {
        const url = (node as { url: string }).url;
        if (/^[a-z][a-z+.-]*:|^#/i.test(url)) return;
        const target = posix.normalize(posix.join(posix.dirname(doc), url.replace(/#.*$/, '')));
        if (!shipped.has(target) && ![...shipped].some((p) => p.startsWith(`${target.replace(/\/$/, '')}/`))) broken.push(`${doc} -> ${url}`);
      });
    }
    expect(broken).toEqual([]);
    expect(shipped).toContain('LICENSE');
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { license: string };
    expect(readFileSync(join(root, 'LICENSE'), 'utf8')).toMatch(new RegExp(`^${pkg.license} License\n`));
  });
});

describe('the installed package', () => {
  it('runs `locklab run pause-past-expiry` from its bin with no dev dependency, and gives the same trace', () => {
    const bin = join(app, 'node_modules/.bin/locklab');
    const out = run(bin, ['run', 'pause-past-expiry'], { cwd: app, env: { ...process.env, NO_COLOR: '1' } });
    expect(out).toContain('Verdict: UNSAFE');
    expect(out).toContain('Reproduce: locklab run pause-past-expiry --seed 7');
    expect(traceHash(JSON.parse(run(bin, ['run', 'pause-past-expiry', '--json'], { cwd: app })))).toBe(expectedHash());
    const bad = spawnSync(bin, ['run', 'no-such-scenario'], { cwd: app, encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^locklab: no-such-scenario: no such file, and no built-in scenario of that name/);
  });

  it('starts `locklab run` without the packages only other commands use, which load when those run', () => {
    // A resolve hook writes down every module the command loads, by URL.
    const log = join(tmp, 'modules.log');
    writeFileSync(
      join(tmp, 'log-hooks.mjs'),
      `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(process.env.LOCKLAB_MODULE_LOG, r.url + '\\n');
  return r;
}
`,
    );
    writeFileSync(
      join(tmp, 'log-modules.mjs'),
      `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${join(tmp, 'log-hooks.mjs')}`)});\n`,
    );
    const installed = join(app, 'node_modules/locklab/sim/cli/bin.mjs');
    const loaded = (bin: string, ...args: string[]): string[] => {
      writeFileSync(log, '');
      run(process.execPath, ['--import', join(tmp, 'log-modules.mjs'), bin, ...args], { cwd: app, env: { ...process.env, LOCKLAB_MODULE_LOG: log } });
      return readFileSync(log, 'utf8')
        .split('\n')
        .flatMap((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? [])
        .filter((p) => p !== 'locklab');
    };
    // Ajv compiles a trace's schema; YAML and the Markdown parser read lessons; BullMQ, ioredis, Tinypool and the bar run sweeps.
    const others = ['ajv', 'yaml', 'unified', 'remark-parse', 'bullmq', 'ioredis', 'tinypool', 'cli-progress'];
    const forRun = loaded(installed, 'run', 'pause-past-expiry');
    expect(forRun.filter((p) => others.includes(p))).toEqual([]);
    // The two small dependencies every command needs are built into the package: none of their files is loaded (decision 0016).
    expect(forRun.filter((p) => p === 'jsonc-parser' || p === '@noble/hashes')).toEqual([]);
    expect(forRun).toContain('commander');
    writeFileSync(join(tmp, 'trace.json'), run(join(app, 'node_modules/.bin/locklab'), ['run', 'pause-past-expiry', '--json'], { cwd: app }));
    expect(loaded(installed, 'check', join(tmp, 'trace.json'))).toContain('ajv');
    // The lessons come with the repository, not the package: the repository's command, built as the package was, checks one.
    expect(loaded(join(root, 'sim/cli/bin.mjs'), 'lessons', 'check', join(root, 'lessons/01-one-machine'))).toEqual(
      expect.arrayContaining(['yaml', 'unified']),
    );
  });

  it('sweeps on two worker processes from its bin, counting what the sources count', async () => {
    const bin = join(app, 'node_modules/.bin/locklab');
    const args = ['sweep', 'pause-past-expiry', '--seeds', '1..300', '--vary', 'faults[0].durationMs=8500..9500:500', '--workers', '2', '--json'];
    const installed = JSON.parse(run(bin, args, { cwd: app })) as { codeVersion: string; combinations: unknown[] };
    const { cli } = await import('./support/cli.js');
    const sources = JSON.parse((await cli(...args)).out) as { combinations: unknown[] };
    expect(installed.combinations).toEqual(sources.combinations);
    // No sources ship, so the code version hashes the compiled command.
    expect(installed.codeVersion).toMatch(/^0\.1\.0\+[0-9a-f]{12}$/);
  });

  it('imports from plain Node: run, run jobs, check, validate, the builder and the schemas', () => {
    const script = `
      import { createRequire } from 'node:module';
      import { readFileSync } from 'node:fs';
      import { runScenario, runJob, normalizeScenario, BUILTIN_SCENARIOS, traceHash, check, findingsOf, validateTrace, serializeTrace, scenario, STORE_TABLE } from 'locklab';
      const normalized = normalizeScenario(BUILTIN_SCENARIOS['pause-past-expiry'], 'x');
      const doc = runScenario(normalized);
      const job = runJob(normalized, 7);
      const again = validateTrace(JSON.parse(serializeTrace(doc)), 'trace');
      const built = scenario('x').redis().client('A').crash('A', { at: 10 }).run();
      const schema = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('locklab/schema/trace.schema.json'), 'utf8'));
      console.log(JSON.stringify({ hash: traceHash(doc), job: [job.runHash, job.events === undefined], findings: findingsOf(check(again.events)).map((f) => f.invariant), outcome: check(again.events).outcome, built: built.verdict.outcome, stores: STORE_TABLE.length, schema: schema.$schema !== undefined }));
    `;
    const result = JSON.parse(run(process.execPath, ['--input-type=module', '-e', script], { cwd: app })) as Record<string, unknown>;
    expect(result).toEqual({
      hash: expectedHash(),
      job: [expectedHash(), true],
      findings: ['lost-lock', 'double-ownership', 'stale-write'],
      outcome: 'unsafe',
      built: 'safe',
      stores: 13,
      schema: true,
    });
  });

  it('type-checks a consumer with its declarations under NodeNext resolution, matchers included', () => {
    symlinkSync(join(root, 'node_modules/vitest'), join(app, 'node_modules/vitest'), 'dir');
    writeFileSync(
      join(app, 'consumer.ts'),
      `import { runScenario, normalizeScenario, BUILTIN_SCENARIOS, type TraceDocument, type StoreKind, type LockDriver, type Verdict, type Runtime } from 'locklab';
import { replay, scenario } from 'locklab/testing';
import { expect } from 'vitest';
const doc: TraceDocument = runScenario(normalizeScenario(BUILTIN_SCENARIOS['pause-past-expiry'], 'x'), 7);
const outcome: Verdict['outcome'] = doc.verdict.outcome;
export const kinds: Array<StoreKind['kind']> = [];
export type Driver = LockDriver;
export type Seam = Runtime['localNow'];
expect(replay('pause-past-expiry')).toHaveDoubleOwnership('A', 'B');
expect(scenario('x').redis().client('A').run({ seed: outcome.length })).toBeSafe();
// @ts-expect-error: no such matcher
expect(replay('pause-past-expiry')).toBeSafeish();
`,
    );
    const options = { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2023', strict: true, noEmit: true };
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...options, skipLibCheck: true, types: [] }, files: ['consumer.ts'] }));
    // The library's own declarations need nothing beyond the ECMAScript library: checked strictly, with no DOM and no Node types.
    writeFileSync(
      join(app, 'tsconfig.lib.json'),
      JSON.stringify({
        compilerOptions: { ...options, lib: ['es2023'], types: [], skipLibCheck: false },
        files: ['node_modules/locklab/dist/types/index.d.ts'],
      }),
    );
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app });
    run(process.execPath, [tsc, '-p', 'tsconfig.lib.json'], { cwd: app });
  });

  it("runs a user's Vitest suite with locklab/testing: matchers registered, failures print the command", () => {
    writeFileSync(
      join(app, 'pinned.test.ts'),
      `import { expect, it } from 'vitest';
import { replay, scenario } from 'locklab/testing';
it('pins the classic story', () => {
  expect(replay('pause-past-expiry', { seed: 7 })).toBeUnsafe();
  expect(replay('pause-past-expiry', { seed: 7, set: { 'resource.fencing': true } })).toHaveRejectedWrite(33);
  expect(scenario('crash').redis().client('A').crash('A', { at: 10 }).run()).toBeSafe();
});
it('fails with the command that reproduces the run', () => {
  expect(() => expect(replay('pause-past-expiry')).toBeSafe()).toThrow('Reproduce:\\nnpx locklab run pause-past-expiry --seed 7');
});
`,
    );
    const out = run(process.execPath, [join(app, 'node_modules/vitest/vitest.mjs'), 'run', '--root', app], { cwd: app, env: { ...process.env, CI: 'true' } });
    expect(out).toMatch(/Tests\s+.*2 passed/);
  });
});

describe('sim/cli/bin.mjs', () => {
  it('says what to do when the compiled command has not been built', () => {
    const checkout = join(tmp, 'unbuilt');
    mkdirSync(join(checkout, 'sim/cli'), { recursive: true });
    copyFileSync(join(root, 'sim/cli/bin.mjs'), join(checkout, 'sim/cli/bin.mjs'));
    const r = spawnSync(process.execPath, [join(checkout, 'sim/cli/bin.mjs'), 'scenarios'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('locklab: the compiled command (dist/lib/cli.js) is missing: run `npm run build:lib` first.\n');
  });
});
