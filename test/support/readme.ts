import { execFile } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Code, Root, Table } from 'mdast';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { visit } from 'unist-util-visit';
import { expect } from 'vitest';

/*
 * The README's commands, as a reader would type them: every `npx locklab`
 * line of its shell blocks, in the order it gives them, run through the
 * shell (its quotes, its redirections) in a directory of the test's own.
 * test/readme.test.ts runs those that need no server, test/real/readme.test.ts
 * the others.
 */

const REPO = new URL('../..', import.meta.url).pathname;
const START = join(REPO, 'sim', 'cli', 'start.ts');
/** tsx, found from here: the commands run in a directory of their own, where `--import tsx` would not find it. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

export const README = unified()
  .use(remarkParse)
  .use(remarkGfm)
  .parse(readFileSync(join(REPO, 'README.md'), 'utf8')) as Root;

/**
 * Each command without its comment (no command has a # of its own), and
 * without an optional argument shown as `[name]`, which the reader leaves
 * out or fills in; once, though the README may give it twice.
 */
export const COMMANDS: readonly string[] = (() => {
  const lines: string[] = [];
  visit(README, 'code', (node: Code) => {
    if (node.lang === 'sh') lines.push(...node.value.split('\n'));
  });
  const commands = lines
    .filter((l) => l.startsWith('npx locklab '))
    .map((l) =>
      l
        .replace(/\s+#.*$/, '')
        .replace(/ \[[\w-]+\]/g, '')
        .trim(),
    );
  return [...new Set(commands)];
})();

/** The commands that start or reach servers. */
export const NEEDS_SERVERS = /^npx locklab (real|compare|worker)\b/;

/**
 * Runs one of the README's commands in `dir` (`npx locklab` being the
 * command's entry, from the sources) and checks it did what it says: exit
 * 0, no stack trace, and the file it was to write, or else something
 * printed. Resolves to what it printed. It does not block: the real
 * servers' commands, which mostly wait on real time, run side by side.
 */
export async function runReadmeCommand(command: string, dir: string): Promise<string> {
  const line = command.replace(/^npx locklab /, `"${process.execPath}" --import "${TSX}" "${START}" `);
  // The file it is to write, gone first: an earlier command may have written one of that name.
  const file = /(?:--out|>) (\S+)/.exec(command)?.[1];
  if (file !== undefined) rmSync(join(dir, file), { force: true });
  const r = await new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
    execFile(
      'bash',
      ['-c', line],
      { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 240_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => done({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
  expect(r.status, `${command} exited ${r.status}:\n${r.stderr}`).toBe(0);
  // Its notes on stderr (a file written, a sweep's progress), never a stack trace.
  expect(r.stderr, command).not.toMatch(/^\s+at /m);
  if (file !== undefined) expect(statSync(join(dir, file)).size, `${command}: ${file}`).toBeGreaterThan(0);
  else expect(r.stdout.length, `${command} printed nothing`).toBeGreaterThan(0);
  return r.stdout;
}

/** The body rows, as text, of the README's table whose first heading cell is `heading`. */
export function readmeTable(heading: string): string[][] {
  let found: string[][] | undefined;
  visit(README, 'table', (t: Table) => {
    const cells = t.children.map((r) => r.children.map((c) => c.children.map((n) => ('value' in n ? n.value : '')).join('')));
    if (cells[0]?.[0] === heading) found = cells.slice(1);
  });
  expect(found, `a table headed "${heading}" in the README`).toBeDefined();
  return found!;
}
