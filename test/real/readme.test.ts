import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisServer } from '../support/redis-server.js';
import { COMMANDS, NEEDS_SERVERS, runReadmeCommand } from '../support/readme.js';
import { describeReal } from './support.js';

/*
 * The README's commands that play scenarios on real servers, run as a
 * reader would type them. One names a Redis of the reader's own at
 * 127.0.0.1:6379: it is given one the test started, on a free port. The
 * sweep worker's line names a queue on another machine; the sweep queue's
 * tests run workers against a Redis of their own (test/sweep-queue.test.ts).
 * They run side by side, each on servers of its own: most of their time is
 * real time waited out (a pause of 15 s past a lease of 10 s), not work.
 */

const ANOTHER_MACHINE = /^npx locklab worker /;
const serverCommands = COMMANDS.filter((c) => NEEDS_SERVERS.test(c));

describeReal("the README's commands on real servers", () => {
  let dir: string;
  let redis: RedisServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'locklab-readme-real-'));
    redis = await RedisServer.start();
  });
  afterAll(async () => {
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('are found', () => {
    expect(serverCommands.filter((c) => !ANOTHER_MACHINE.test(c)).length).toBeGreaterThan(5);
    expect(serverCommands.filter((c) => ANOTHER_MACHINE.test(c))).toHaveLength(1);
  });

  for (const command of serverCommands.filter((c) => !ANOTHER_MACHINE.test(c)))
    it.concurrent(
      command,
      async () => {
        const out = await runReadmeCommand(command.replace('redis://127.0.0.1:6379', redis.url), dir);
        // A real run ends with its verdict; a comparison says whether the two runs agree.
        expect(out).toMatch(command.startsWith('npx locklab compare') ? /agree/ : /Verdict: /);
      },
      180_000,
    );
});
