import { describe, expect, it } from 'vitest';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import { applyOverrides } from '../sim/scenario/set.js';
import { clientPhp } from '../sim/scenario/steps-php.js';
import type { Scenario } from '../sim/scenario/types.js';
import { BUILTIN_SCENARIOS } from '../sim/scenarios/index.js';
import { cli } from './support/cli.js';

/* A client's steps, written out as the PHP they stand for (the Sandbox shows it beside each client). */

const builtin = (name: string): Scenario => normalizeScenario(BUILTIN_SCENARIOS[name], name);
const php = (s: Scenario, client: string): string =>
  clientPhp(
    s,
    s.clients.find((c) => c.name === client)!,
  );

describe('a client as PHP', () => {
  it('a shorthand worker of many jobs is one loop: a sleep between passes, a new Lock object for each, a drawn work time and a random GC pause', () => {
    expect(php(builtin('random-gc-pauses'), 'A')).toBe(
      [
        'for ($i = 0; $i < 20; $i++) {',
        '    if ($i > 0) usleep(500000);',
        "    $lock = $factory->createLock('job', 30);",
        '    try {',
        '        if (!$lock->acquire(true)) continue;',
        '        if (mt_rand() / mt_getrandmax() < 0.01) gc_pause(); // long tail, 0.05 to 60 s',
        '        try {',
        '            work(…); // exponential, mean 2 s, drawn afresh each time',
        '            write();',
        '        } finally {',
        '            $lock->release();',
        '        }',
        '    } catch (\\Throwable $e) {',
        '        // logged; on with the next pass',
        '    }',
        '}',
      ].join('\n'),
    );
  });

  it('a script of steps keeps its shape: a pass that catches, then a sleep', () => {
    expect(php(builtin('finally-after-exception'), 'A')).toBe(
      [
        "$lock = $factory->createLock('job', 10);",
        'try {',
        '    if (!$lock->acquire()) return;',
        '    work(0.5);',
        "    throw new \\RuntimeException('the job failed halfway');",
        '    write();',
        '    $lock->release();',
        '} catch (\\Throwable $e) {',
        '    // logged',
        '}',
        'sleep(15);',
      ].join('\n'),
    );
  });

  it('says a single job’s failed acquire ends the script, and names retries, waits, forks, plain DELs and autoRelease', () => {
    const pause = php(builtin('pause-past-expiry'), 'B');
    expect(pause).toContain('if (!$lock->acquire()) return; // tried 11 times, 2 s apart');
    expect(pause).not.toContain('continue');
    expect(php(builtin('lock-expired-on-acquire'), 'B')).toMatch(/acquire\(true\)\) return; \/\/ gives up after \d+ s/);
    expect(php(builtin('release-by-plain-del'), 'A')).toContain("$redis->del('job'); // a plain DEL, whoever holds the key");
    const fork = applyOverrides(builtin('auto-release-fork'), [{ path: 'clients.A.autoRelease', value: false }]);
    expect(php(fork, 'A')).toMatch(/^\$lock = \$factory->createLock\('job', 30, autoRelease: false\);\n/);
    expect(php(fork, 'A')).toContain('if (pcntl_fork() === 0) {\n        work(0.2);\n        exit(0);\n    }');
    expect(php(builtin('remaining-lifetime-refresh'), 'A')).toContain(
      '    for ($i = 0; $i < 8; $i++) {\n        if ($lock->getRemainingLifetime() < 1.5) {\n            if ($lock->isExpired()) {',
    );
  });
});

describe('locklab run --code', () => {
  it('prints each client as PHP above the timeline, and is refused with --json', async () => {
    const r = await cli('run', 'release-by-plain-del', '--code');
    expect(r.code).toBe(0);
    const [code, timeline] = r.out.split('\nrelease-by-plain-del · seed 5');
    expect(code).toMatch(/^What the clients run, as PHP:\n.*\n\nA on app1\n {3}1 {2}\$lock = \$factory->createLock\('job', 2\);\n/);
    expect(code).toMatch(/ {2}\d+ {6}\} finally \{\n +\d+ {10}\$redis->del\('job'\); \/\/ a plain DEL, whoever holds the key\n +\d+ {6}\}/);
    expect(code).toContain('\n\nC on app3\n');
    expect(timeline).toMatch(/A@app1 +starts/);
    const refused = await cli('run', 'release-by-plain-del', '--code', '--json');
    expect(refused).toMatchObject({ code: 2, out: '' });
    expect(refused.err).toBe("locklab: --code: prints the clients' code above the timeline, which --json does not print\n");
  });

  it('says so above the code when the store is not one of Symfony’s', async () => {
    const r = await cli('run', 'redlock-clock-jump', '--code');
    expect(r.out).toMatch(
      /^What the clients run, as PHP:\nThe store is Redlock \(node-redlock\), not one of Symfony's: read the calls as what its client does \(take the lock, refresh it, release it\)\.\n.*\n\nclient1 on app1\n/,
    );
    expect((await cli('run', 'pause-past-expiry', '--code')).out).toMatch(/^What the clients run, as PHP:\n[^\n]*line[^\n]*\n\nA on app1\n/);
  });

  it('look-then-set is written by hand: a GET, then a SET another client can beat', () => {
    expect(php(builtin('exists-then-set-race'), 'A')).toContain(
      "    if ($redis->get('job') !== false) return; // GET first…\n    $redis->set('job', $token, ['px' => 10000]); // …then SET: another client can SET in between\n",
    );
  });

  it('a plain delete on Memcached is its delete', () => {
    const s = applyOverrides(builtin('memcached-restart'), [{ path: 'clients.A.release.method', value: 'plain-del' }]);
    expect(php(s, 'A')).toContain("$memcached->delete('job'); // a plain delete, whoever holds the key");
  });
});
