import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The unprivileged account servers run as when the harness runs as root (PostgreSQL refuses root). */
export const SERVER_USER = 'locklab';

function lookup(name: string): { uid: number; gid: number } | undefined {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.split(':')[0] === name);
  if (line === undefined) return undefined;
  const f = line.split(':');
  return { uid: Number(f[2]), gid: Number(f[3]) };
}

/**
 * Who a server that must not run as root runs as: ourselves when we are not
 * root, else the `locklab` system account, created on first use.
 */
export function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const found = lookup(SERVER_USER);
  if (found !== undefined) return found;
  const r = spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', SERVER_USER], { encoding: 'utf8' });
  const created = lookup(SERVER_USER);
  if (created === undefined) throw new Error(`cannot create the ${SERVER_USER} account for PostgreSQL: ${r.stderr || r.error?.message || 'useradd failed'}`);
  return created;
}
