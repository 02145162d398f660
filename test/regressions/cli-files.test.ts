import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, type CliResult } from '../support/cli.js';

/*
 * Regressions of the CLI's files: a FIFO as the scenario hung for ever,
 * /dev/zero ran out of memory after 39 s, `--out` to a device or a symbolic
 * link replaced it with a regular file, and `--out ""` printed
 * "locklab: : cannot write".
 */

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'locklab-files-'));
});

function fifo(name: string): string {
  const path = join(dir, name);
  const r = spawnSync('mkfifo', [path]);
  if (r.status !== 0) throw new Error(`mkfifo failed: ${String(r.stderr)}`);
  return path;
}

function expectRefused(r: CliResult, line: string): void {
  expect(r.code).toBe(2);
  expect(r.out).toBe('');
  expect(r.err).toBe(`${line}\n`);
}

describe('what locklab reads', () => {
  it('a FIFO as the scenario is refused at once instead of waiting for a writer', async () => {
    const path = fifo('scenario.fifo');
    expectRefused(await cli('run', path), `locklab: ${path}: is a named pipe (FIFO), expected a JSON file`);
  });

  it('/dev/zero as the scenario or the trace is refused before a byte is read', async () => {
    expectRefused(await cli('run', '/dev/zero'), 'locklab: /dev/zero: is a character device, expected a JSON file');
    expectRefused(await cli('check', '/dev/zero'), 'locklab: /dev/zero: is a character device, expected a JSON file');
  });

  it('a directory as the scenario is refused in words', async () => {
    expectRefused(await cli('run', dir), `locklab: ${dir}: is a directory, expected a JSON file`);
  });

  it('an empty scenario name is refused in words', async () => {
    expectRefused(await cli('run', ''), 'locklab: scenario: expected a file or a built-in name, got an empty one');
  });

  it('a /proc file that says it is empty is still read, and refused as not JSON', async () => {
    const r = await cli('run', '/proc/self/status');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^locklab: \/proc\/self\/status: not valid JSON at line 1, column 1/);
  });

  it('a symbolic link to a scenario file is read through', async () => {
    const target = join(dir, 'real.json');
    writeFileSync(target, readFileSync(new URL('../../sim/scenarios/crash-without-release.json', import.meta.url)));
    const link = join(dir, 'link.json');
    symlinkSync(target, link);
    expect((await cli('run', link)).code).toBe(0);
  });
});

describe('what --out writes', () => {
  it('--out "" is refused by name', async () => {
    const r = await cli('run', 'crash-without-release', '--out', '');
    expect(r.code).toBe(2);
    expect(r.err).toContain("option '--out <file>' argument '' is invalid. expected a file name, got an empty one.");
  });

  it('--out to a character device is refused and the device is left alone', async () => {
    expectRefused(
      await cli('run', 'crash-without-release', '--out', '/dev/null'),
      'locklab: /dev/null: cannot write: is a character device, not a regular file',
    );
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
  });

  it('--out to a FIFO is refused without opening it', async () => {
    const path = fifo('out.fifo');
    expectRefused(await cli('run', 'crash-without-release', '--out', path), `locklab: ${path}: cannot write: is a named pipe (FIFO), not a regular file`);
    expect(lstatSync(path).isFIFO()).toBe(true);
  });

  it('--out to a symbolic link is refused, and neither the link nor its target changes', async () => {
    const target = join(dir, 'target.json');
    writeFileSync(target, 'keep me');
    const link = join(dir, 'out-link.json');
    symlinkSync(target, link);
    expectRefused(
      await cli('run', 'crash-without-release', '--out', link),
      `locklab: ${link}: cannot write: is a symbolic link; give the path of the file itself`,
    );
    expect(readlinkSync(link)).toBe(target);
    expect(readFileSync(target, 'utf8')).toBe('keep me');
  });

  it('--out to a directory is refused', async () => {
    const sub = join(dir, 'a-directory');
    mkdirSync(sub);
    expectRefused(await cli('run', 'crash-without-release', '--out', sub), `locklab: ${sub}: cannot write: is a directory, not a regular file`);
  });

  it('--out over an existing regular file replaces it whole and leaves no temporary file', async () => {
    const sub = mkdtempSync(join(dir, 'replace-'));
    const out = join(sub, 'trace.json');
    writeFileSync(out, 'old');
    expect((await cli('run', 'crash-without-release', '--out', out)).code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({ schema: 'locklab.trace/1' });
    expect(readdirSync(sub)).toEqual(['trace.json']);
  });

  it('--out into a read-only directory fails cleanly and leaves nothing behind', async () => {
    if (process.getuid?.() === 0) {
      // root writes anywhere; a path through a regular file fails the same way for everyone.
      const file = join(dir, 'plain-file');
      writeFileSync(file, '');
      expectRefused(
        await cli('run', 'crash-without-release', '--out', join(file, 't.json')),
        `locklab: ${join(file, 't.json')}: cannot write: its directory does not exist`,
      );
      return;
    }
    const sub = mkdtempSync(join(dir, 'ro-'));
    spawnSync('chmod', ['a-w', sub]);
    const r = await cli('run', 'crash-without-release', '--out', join(sub, 't.json'));
    expect(r.code).toBe(2);
    expect(readdirSync(sub)).toEqual([]);
  });
});
