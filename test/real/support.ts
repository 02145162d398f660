import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'vitest';
import { findBinary, MissingBinaryError, POSTGRES_DIRS } from '../../sim/real/harness/binaries.js';

/** The server programs the real tests start, with the Debian package of each. */
const PROGRAMS: ReadonlyArray<[string, string, readonly string[]]> = [
  ['redis-server', 'redis-server', []],
  ['memcached', 'memcached', []],
  ['postgres', 'postgresql', POSTGRES_DIRS],
  ['etcd', 'etcd-server', []],
  ['java', 'default-jre-headless', []],
  ['php', 'php-cli', []],
];

function missing(): string[] {
  const out: string[] = [];
  for (const [program, pkg, dirs] of PROGRAMS) {
    try {
      findBinary(program, pkg, dirs);
    } catch (err) {
      if (err instanceof MissingBinaryError) out.push(err.message);
    }
  }
  if (!existsSync('/usr/share/java/zookeeper.jar')) out.push("zookeeper.jar was not found: install Debian's zookeeper package (apt-get install zookeeper)");
  return out;
}

/**
 * Declares a suite that runs against real servers. Without the servers'
 * programs it is skipped with a message, except under CI, where it must run
 * and fail rather than pass by skipping.
 */
export function describeReal(name: string, body: () => void): void {
  const gaps = missing();
  if (gaps.length === 0) {
    describe(name, body);
    return;
  }
  if (process.env.CI) {
    describe(name, () => {
      it('needs the real servers installed', () => {
        throw new Error(`${gaps.join('; ')}; CI requires the real-server tests to run (bash .ci/setup installs them).`);
      });
    });
    return;
  }
  console.warn(`[real tests] skipping "${name}": ${gaps.join('; ')}.`);
  describe.skip(name, body);
}

/** Whether process `pid` is alive (and not a zombie). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

/** Polls `f` every 50 ms until it is true or `timeoutMs` passes; returns its last answer. */
export async function eventually(f: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await f()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}
