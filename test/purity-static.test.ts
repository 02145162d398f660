import { ESLint } from 'eslint';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;
const fixture = join(root, 'test/fixtures/impure-core.ts');

/** The core's compiler options, read from tsconfig.core.json as `npm test` uses them. */
function coreConfig(): ts.ParsedCommandLine {
  const file = join(root, 'tsconfig.core.json');
  const read = ts.readConfigFile(file, (p) => ts.sys.readFile(p));
  expect(read.error).toBeUndefined();
  return ts.parseJsonConfigFileContent(read.config, ts.sys, root, undefined, file);
}

/** The names TypeScript could not find, with the line they are on. */
function unknownNames(program: ts.Program): string[] {
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => ({ d, text: ts.flattenDiagnosticMessageText(d.messageText, '\n') }))
    .filter(({ text }) => text.startsWith('Cannot find name'))
    .map(({ d, text }) => `${d.file!.getLineAndCharacterOfPosition(d.start!).line + 1}: ${/'([^']+)'/.exec(text)![1]}`);
}

describe('the simulation core is pure, proven before it runs', () => {
  it("tsconfig.core.json covers every core file and leaves out only the CLI, the real runner, sweeps and the testing API's Vitest entry", () => {
    const files = coreConfig().fileNames.map((f) => relative(root, f));
    expect(files).toContain('sim/run.ts');
    expect(files).toContain('sim/check/checker.ts');
    expect(files).toContain('sim/testing/builder.ts');
    expect(files.filter((f) => /^sim\/(cli|real|sweep)\/|^sim\/testing\/vitest\.ts$/.test(f))).toEqual([]);
    expect(files.filter((f) => !f.startsWith('sim/'))).toEqual([]);
  });

  it('the core type-checks against the ECMAScript library alone, with no DOM and no Node types loaded', () => {
    const config = coreConfig();
    const program = ts.createProgram(config.fileNames, config.options);
    expect(ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);
    // A dependency's declarations could pull in DOM or Node types by a triple-slash reference; none may.
    // The lesson loader's Markdown parser brings the syntax-tree types of unist and mdast, which are plain data types.
    const loaded = program.getSourceFiles().map((f) => relative(root, f.fileName));
    expect(loaded.filter((f) => /lib\.(dom|webworker|scripthost)/i.test(f) || (f.includes('@types/') && !/@types\/(unist|mdast)\//.test(f)))).toEqual([]);
  });

  it('the type checker refuses host APIs in core code: performance, fetch, storage, process, the DOM, timers, Buffer', () => {
    const config = coreConfig();
    const program = ts.createProgram([fixture], config.options);
    const names = unknownNames(program);
    for (const expected of ['7: performance', '8: fetch', '9: localStorage', '10: process', '11: document', '12: setTimeout', '13: Buffer'])
      expect(
        names.some((n) => n.startsWith(expected)),
        `${expected} in ${names.join('; ')}`,
      ).toBe(true);
  });

  it('the linter refuses each of those, and globalThis.Date, in a file under sim/', async () => {
    const eslint = new ESLint({ cwd: root });
    const [result] = await eslint.lintText(readFileSync(fixture, 'utf8'), { filePath: join(root, 'sim/impure.ts') });
    const refused = result!.messages.filter((m) => m.ruleId === 'no-restricted-globals').map((m) => `${m.line}: ${/'([^']+)'/.exec(m.message)?.[1]}`);
    expect(refused).toEqual(['6: globalThis', '7: performance', '8: fetch', '9: localStorage', '10: process', '11: document', '12: setTimeout', '13: Buffer']);
  });

  it('the same file is allowed in the CLI, which may use the host', async () => {
    const eslint = new ESLint({ cwd: root });
    const [result] = await eslint.lintText(readFileSync(fixture, 'utf8'), { filePath: join(root, 'sim/cli/impure.ts') });
    expect(result!.messages.filter((m) => m.ruleId === 'no-restricted-globals')).toEqual([]);
  });
});
