import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, ready, screenshot, startLab, type Lab } from './harness.js';

describeBrowser('the sandbox', () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab();
  });
  afterAll(async () => {
    await lab?.close();
  });

  it('builds a scenario from the forms, runs it in the browser and shows the verdict', async () => {
    const page = await lab.page('#/sandbox');
    await page.getByRole('button', { name: 'Blank scenario' }).click();
    await expect.poll(() => page.getByTestId('draft-state').getAttribute('data-from')).toBe('blank');
    const a = page.locator('[data-client-card="A"]');
    await a.getByLabel('TTL (ms)').fill('2000');
    await a.getByLabel('Work per write (ms)').fill('3000');
    await page.getByRole('button', { name: 'Add a client' }).click();
    const b = page.locator('[data-client-card="B"]');
    await b.getByLabel('Machine').selectOption('app2');
    await b.getByLabel('Starts at (ms)').fill('1000');
    await b.getByLabel('Retries', { exact: true }).fill('10');
    await b.getByLabel('Retry delay (ms)').fill('500');
    await b.getByLabel('Work per write (ms)').fill('200');
    await page.getByLabel('New fault').selectOption('clock-jump');
    await page.getByRole('button', { name: 'Add fault' }).click();
    await page.locator('[data-fault-row="0"]').getByLabel('At (ms)').fill('2500');
    await page.locator('[data-fault-row="0"]').getByLabel('Jumps by (ms, negative: back)').fill('100');
    await page.getByTestId('sandbox-run').click();
    await expect.poll(() => page.getByTestId('verdict').getAttribute('data-outcome')).toBe('unsafe');
    await ready(page);
    expect(await page.locator('[data-mark="write"][data-outcome="stale-accepted"]').count()).toBe(1);
    expect(await page.locator('[data-mark="clock.jump"]').count()).toBeGreaterThan(0);
    await screenshot(page, 'sandbox-unsafe');

    await page.getByLabel('Fencing: the resource rejects lower tokens').check();
    await page.getByTestId('sandbox-run').click();
    await expect.poll(() => page.getByTestId('verdict').getAttribute('data-outcome')).toBe('fenced');

    await page.getByRole('button', { name: 'Open in the Lab to step through it' }).click();
    await ready(page);
    await expect.poll(() => page.locator('[data-mark="write"][data-outcome="rejected"]').count()).toBe(1);
    expect(lab.errors).toEqual([]);
  });

  it('notes a TTL that ends before the work it covers, and the TTL in seconds it most likely meant, in the form’s words', async () => {
    const page = await lab.page('#/sandbox', { width: 1440, height: 900 });
    await page.getByRole('button', { name: 'Blank scenario' }).click();
    await expect.poll(() => page.getByTestId('draft-state').getAttribute('data-from')).toBe('blank');
    const a = page.locator('[data-client-card="A"]');
    await a.getByLabel('TTL (ms)').fill('30');
    await a.getByLabel('Work per write (ms)').fill('200');
    await page.getByTestId('sandbox-run').click();
    await expect.poll(() => page.getByTestId('verdict').getAttribute('data-outcome')).toBe('safe');
    expect(await page.getByTestId('short-lease').textContent()).toBe(
      "Note: A's lease (TTL (ms): 30, 30 ms) ends before its work (200 ms) does, so it works on past its lock with no fault at all. Durations are in milliseconds: did you mean 30 s, TTL (ms): 30000?",
    );
    // The note names the box the form labels so: the JSON field name ("ttlMs") is for files and the command line.
    expect(await a.getByLabel('TTL (ms)').count()).toBe(1);
    await screenshot(page, 'sandbox-short-lease-1440');
    await a.getByLabel('TTL (ms)').fill('30000');
    await page.getByTestId('sandbox-run').click();
    await expect.poll(() => page.getByTestId('short-lease').count()).toBe(0);
    expect(lab.errors).toEqual([]);
  });

  it('names what the form was started from, and keeps its verdict beside the form on a small laptop', async () => {
    const page = await lab.page('#/sandbox', { width: 1024, height: 768 });
    const start = page.getByTestId('sandbox-start');
    await expect.poll(() => start.inputValue()).toBe('pause-past-expiry');
    await page.getByTestId('sandbox-run').click();
    await expect.poll(() => page.getByTestId('verdict').getAttribute('data-outcome')).toBe('unsafe');
    // Running the form's scenario leaves it what it was loaded from.
    expect(await start.inputValue()).toBe('pause-past-expiry');
    const form = (await page.getByRole('form', { name: 'Scenario' }).boundingBox())!;
    const verdict = (await page.getByTestId('verdict').boundingBox())!;
    expect(verdict.x).toBeGreaterThanOrEqual(form.x + form.width);
    expect(verdict.y + verdict.height).toBeLessThanOrEqual(768);
    await screenshot(page, 'sandbox-1024');

    await page.getByRole('button', { name: 'Blank scenario' }).click();
    await expect.poll(() => page.getByTestId('draft-state').getAttribute('data-from')).toBe('blank');
    await expect.poll(() => start.inputValue()).toBe('');
    expect(await start.locator('option:checked').textContent()).toBe('(a blank scenario)');
    expect(await page.getByRole('button', { name: 'Load', exact: true }).isDisabled()).toBe(true);
    await start.selectOption('crash-without-release');
    expect(await page.getByRole('button', { name: 'Load', exact: true }).isDisabled()).toBe(false);
    expect(lab.errors).toEqual([]);
  });

  it('switches the store to each kind and runs it: every kind starts from a valid form', async () => {
    const page = await lab.page('#/sandbox');
    await page.getByRole('button', { name: 'Blank scenario' }).click();
    await expect.poll(() => page.getByTestId('draft-state').getAttribute('data-from')).toBe('blank');
    // Each kind's run draws its own store lanes: per-machine flock tables, three Redlock or Combined nodes, one server.
    const lane: Record<string, string> = {
      flock: 'store:flock@app1',
      redlock: 'store:r3',
      combined: 'store:r2',
      postgres: 'store:postgres',
      redis: 'store:redis',
    };
    for (const [kind, laneId] of Object.entries(lane)) {
      await page.getByLabel('Store', { exact: true }).selectOption(kind);
      await expect.poll(() => page.getByLabel('Store', { exact: true }).inputValue()).toBe(kind);
      await page.getByTestId('sandbox-run').click();
      await expect.poll(() => page.locator(`[data-lane="${laneId}"]`).count(), { message: kind }).toBe(1);
      expect(await page.getByTestId('verdict').getAttribute('data-outcome'), kind).toBe('safe');
      expect(await page.getByTestId('sandbox-issues').count(), kind).toBe(0);
    }
    expect(lab.errors).toEqual([]);
  });

  it('edits a drawn work time and random GC pauses as choices and numbers, and the exported scenario holds them', async () => {
    const page = await lab.page('#/sandbox');
    await page.getByTestId('sandbox-start').selectOption('random-gc-pauses');
    await page.getByRole('button', { name: 'Load', exact: true }).click();
    const a = page.locator('[data-client-card="A"]');
    await expect.poll(() => a.getByLabel('Work time', { exact: true }).inputValue()).toBe('exponential');
    expect(await a.getByLabel('Work per write, mean (ms)').inputValue()).toBe('2000');
    // workMs is not read beside a drawn work time, so it is not shown either.
    expect(await a.getByLabel('Work per write (ms)', { exact: true }).count()).toBe(0);
    expect(await a.getByLabel('Pause length').inputValue()).toBe('long-tail');
    await a.getByLabel('Pause, longest (ms)').fill('90000');
    // The same every time keeps about the time it had, as workMs.
    await a.getByLabel('Work time', { exact: true }).selectOption('fixed');
    expect(await a.getByLabel('Work per write (ms)', { exact: true }).inputValue()).toBe('2000');
    const b = page.locator('[data-client-card="B"]');
    await b.getByLabel('Work time', { exact: true }).selectOption('uniform');
    expect([await b.getByLabel('Work per write, shortest (ms)').inputValue(), await b.getByLabel('Work per write, longest (ms)').inputValue()]).toEqual([
      '1000',
      '3000',
    ]);
    await page.locator('[data-client-card="C"]').getByLabel('Random GC pauses after acquiring').uncheck();
    await page.getByTestId('sandbox-run').click();
    await expect.poll(() => page.getByTestId('verdict').getAttribute('data-outcome')).toMatch(/^(safe|unsafe|fenced)$/);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export scenario' }).click()]);
    const clients = (JSON.parse(await readFile((await download.path())!, 'utf8')) as { clients: Array<Record<string, unknown>> }).clients;
    expect(clients[0]).toMatchObject({ workMs: 2000, pauseAfterAcquire: { duration: { distribution: 'long-tail', minMs: 50, maxMs: 90000 } } });
    expect(clients[0]).not.toHaveProperty('workTime');
    expect(clients[1]).toMatchObject({ workTime: { distribution: 'uniform', minMs: 1000, maxMs: 3000 } });
    expect(clients[2]).not.toHaveProperty('pauseAfterAcquire');
    await screenshot(page, 'sandbox-drawn');
    expect(lab.errors).toEqual([]);
  });

  it('shows each client as the PHP it stands for, and a client written as steps by its steps alone', async () => {
    const page = await lab.page('#/sandbox');
    await page.getByTestId('sandbox-start').selectOption('finally-after-exception');
    await page.getByRole('button', { name: 'Load', exact: true }).click();
    const a = page.locator('[data-client-card="A"]');
    // The lifecycle's settings would be refused beside steps, so they are not offered.
    await expect.poll(() => a.getByLabel('Steps (JSON)').count()).toBe(1);
    expect(await a.getByLabel('Iterations', { exact: true }).count()).toBe(0);
    expect(await a.getByLabel('Acquire mode').count()).toBe(0);
    const php = a.getByLabel('What A runs, as PHP');
    expect(await php.isVisible()).toBe(true);
    expect(await php.textContent()).toContain("throw new \\RuntimeException('the job failed halfway');\n    write();");
    expect(await php.textContent()).toMatch(/\nsleep\(15\);$/);
    const steps = a.getByLabel('Steps (JSON)');
    // The steps say what differs from the defaults, a step to a line, as the scenario's file would.
    expect(await steps.inputValue()).toContain('\n      {"step": "acquire"},\n      {"step": "work", "durationMs": 500},\n');
    expect(await steps.inputValue()).not.toContain('"native"');
    await steps.fill((await steps.inputValue()).replace('"durationMs": 15000', '"durationMs": 2500'));
    await expect.poll(() => php.textContent()).toMatch(/\nusleep\(2500000\);$/);
    // Steps that are not a valid script yet leave the PHP until they are.
    await steps.fill('[{"step": "sleep"}]');
    await expect.poll(() => a.getByTestId('client-php').textContent()).toContain('Shown when the form is a valid scenario');

    // A lifecycle client's PHP follows its form, folded away until asked for (the Sandbox opens on pause-past-expiry).
    const fresh = await lab.page('#/sandbox');
    const b = fresh.locator('[data-client-card="B"]');
    await expect.poll(() => b.getByLabel('Iterations', { exact: true }).count()).toBe(1);
    expect(await b.getByLabel('What B runs, as PHP').isVisible()).toBe(false);
    await b.getByText('B as PHP').click();
    await b.getByLabel('Iterations', { exact: true }).fill('3');
    await expect.poll(() => b.getByLabel('What B runs, as PHP').textContent()).toMatch(/^for \(\$i = 0; \$i < 3; \$i\+\+\) \{\n/);
    expect(await b.getByLabel('What B runs, as PHP').textContent()).toContain('if (!$lock->acquire()) continue; // tried 11 times, 2 s apart');
    await screenshot(fresh, 'sandbox-php');
    expect(lab.errors).toEqual([]);
  });

  it('lists each problem by its field in the form and its path when the form is not valid, and runs nothing', async () => {
    const page = await lab.page('#/sandbox');
    await page.getByRole('button', { name: 'Blank scenario' }).click();
    await expect.poll(() => page.getByTestId('draft-state').getAttribute('data-from')).toBe('blank');
    await page.locator('[data-client-card="A"]').getByLabel('TTL (ms)').fill('0');
    await page.getByTestId('sandbox-run').click();
    const issues = page.getByTestId('sandbox-issues');
    await expect.poll(() => issues.textContent()).toContain('clients[0].ttlMs');
    expect(await issues.textContent()).toContain('must be at least 0.001 ms');
    expect(await page.getByTestId('verdict').count()).toBe(0);
    // Each problem is named as the form names its field, so it can be found without knowing the file's paths.
    expect(await issues.getByTestId('issue-place').allTextContents()).toEqual(['Client A › TTL (ms): ']);
    await page.getByLabel('Message loss (0–1)').fill('5');
    // A new client takes the first one's settings, its TTL among them.
    await page.getByRole('button', { name: 'Add a client' }).click();
    await page.getByLabel('New fault').selectOption({ label: 'Clock jump' });
    await page.getByRole('button', { name: 'Add fault' }).click();
    await page.locator('[data-fault-row="0"]').getByLabel('At (ms)').fill('-100');
    await page.locator('[data-client-card="B"]').getByLabel('Key').fill('');
    await page.getByTestId('sandbox-run').click();
    await expect
      .poll(async () => (await issues.getByTestId('issue-place').allTextContents()).sort())
      .toEqual(
        [
          'Client A › TTL (ms): ',
          'Client B › Key: ',
          'Client B › TTL (ms): ',
          'Fault 1 (Clock jump) › At (ms): ',
          'Store, resource and network › Message loss (0–1): ',
        ].sort(),
      );
    await screenshot(page, 'sandbox-issues');
  });

  it('keeps a number box emptied to type a new value empty, says it needs one, and never runs it as 0', async () => {
    const page = await lab.page('#/sandbox');
    await page.getByRole('button', { name: 'Blank scenario' }).click();
    await expect.poll(() => page.getByTestId('draft-state').getAttribute('data-from')).toBe('blank');
    const ttl = page.locator('[data-client-card="A"]').getByLabel('TTL (ms)');
    const before = await ttl.inputValue();
    await ttl.fill('');
    expect(await ttl.inputValue()).toBe('');
    expect(await ttl.getAttribute('aria-invalid')).toBe('true');
    const noteId = (await ttl.getAttribute('aria-describedby'))!.split(' ').find((id) => id.endsWith('-missing'))!;
    const note = page.locator(`[id="${noteId}"]`);
    expect(await note.textContent()).toBe(`Needs a number; left empty, it stays ${before}.`);
    await screenshot(page, 'sandbox-emptied-number');
    // Leaving the box empty gives it its value back; the run has nothing to refuse.
    await page.getByTestId('sandbox-run').click();
    expect(await ttl.inputValue()).toBe(before);
    expect(await ttl.getAttribute('aria-invalid')).toBeNull();
    await expect.poll(() => page.getByTestId('verdict').count()).toBe(1);
    expect(await page.getByTestId('sandbox-issues').count()).toBe(0);
    // Typed anew, the value is the one typed.
    await ttl.fill('');
    await ttl.pressSequentially('2500');
    expect(await ttl.inputValue()).toBe('2500');
    expect(lab.errors).toEqual([]);
  });

  it('imports a scenario file, shows a bad one’s issues as text, and exports what it holds', async () => {
    const page = await lab.page('#/sandbox');
    await page.getByRole('button', { name: 'Blank scenario' }).waitFor();
    const bad = {
      name: 'x',
      machines: [{ name: 'm' }],
      store: { kind: 'mysql', machine: 'm' },
      clients: [{ name: '<img src=x onerror="window.__pwned=1">', machine: 'm' }],
    };
    await page.getByTestId('import-scenario').setInputFiles({ name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(bad)) });
    const issues = page.getByTestId('sandbox-issues');
    await expect.poll(() => issues.textContent()).toContain('bad.json: store.kind');
    expect(await issues.textContent()).toContain('clients[0].name');
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

    await page
      .getByTestId('import-scenario')
      .setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{\n  "name": "x",\n  "machines": [}\n') });
    await expect.poll(() => issues.textContent()).toContain('not valid JSON at line 3, column 16: a value was expected');
    expect(await issues.textContent()).toContain('broken.json');

    const good = {
      name: 'imported-one',
      machines: [{ name: 'a' }, { name: 'db' }],
      store: { kind: 'redis', machine: 'db' },
      clients: [{ name: 'Solo', machine: 'a', ttlMs: 1234 }],
    };
    await page.getByTestId('import-scenario').setInputFiles({ name: 'good.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(good)) });
    await expect.poll(() => page.locator('[data-client-card="Solo"]').count()).toBe(1);
    expect(await page.locator('[data-client-card="Solo"]').getByLabel('TTL (ms)').inputValue()).toBe('1234');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export scenario' }).click()]);
    const exported = JSON.parse(await readFile((await download.path())!, 'utf8')) as { name: string; clients: { ttlMs: number }[] };
    expect(exported.name).toBe('imported-one');
    expect(exported.clients[0]!.ttlMs).toBe(1234);
  });

  it('keeps an imported scenario and an edited one when the learner leaves the Sandbox for the Lab or a lesson and comes back', async () => {
    const page = await lab.page('#/sandbox?s=pause-past-expiry', { width: 1440, height: 900 });
    await expect.poll(() => page.getByLabel('Name', { exact: true }).first().inputValue()).toBe('pause-past-expiry');
    const mine = {
      name: 'imported-one',
      machines: [{ name: 'a' }, { name: 'db' }],
      store: { kind: 'redis', machine: 'db' },
      clients: [{ name: 'Solo', machine: 'a', ttlMs: 1234 }],
    };
    await page.getByTestId('import-scenario').setInputFiles({ name: 'mine.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(mine)) });
    await expect.poll(() => page.locator('[data-client-card="Solo"]').count()).toBe(1);
    const tab = (name: string) => page.getByRole('button', { name, exact: true }).click();
    const primary = () => page.evaluate(() => window.__locklab!.ui.getState().primaryId);
    // A load that replaced the form would come back from the worker within a few milliseconds.
    const settled = () => page.waitForTimeout(300);

    await tab('Lab');
    await ready(page);
    await tab('Sandbox');
    await settled();
    expect(await page.getByTestId('draft-state').getAttribute('data-from')).toBe('file:mine.json');
    expect(await page.locator('[data-client-card="Solo"]').getByLabel('TTL (ms)').inputValue()).toBe('1234');
    expect(await page.getByTestId('confirm').count()).toBe(0);

    // A lesson shows its own story on the lab's stage: back in the Sandbox, the form is still the learner's, and opening the story is only offered.
    const before = await primary();
    await page.evaluate(() => (location.hash = '#/lesson/04-pause-past-expiry'));
    await page.getByRole('button', { name: 'Play the story' }).first().click();
    await expect.poll(primary).not.toBe(before);
    await tab('Sandbox');
    const confirm = page.getByTestId('confirm');
    await confirm.waitFor();
    expect(await confirm.textContent()).toContain('replaces imported-one, the scenario in the form');
    expect(await confirm.getByRole('button').allTextContents()).toEqual([expect.stringMatching(/^Open /), 'Keep imported-one']);
    await confirm.getByRole('button', { name: 'Keep imported-one' }).click();
    await tab('Lab');
    await ready(page);
    await tab('Sandbox');
    await settled();
    expect(await page.locator('[data-client-card="Solo"]').getByLabel('TTL (ms)').inputValue()).toBe('1234');
    expect(await page.getByTestId('confirm').count()).toBe(0);

    // Edited and not run: the changes stay too, and nothing asks about them.
    await page.locator('[data-client-card="Solo"]').getByLabel('TTL (ms)').fill('4321');
    await tab('Lab');
    await ready(page);
    await tab('Sandbox');
    await settled();
    expect(await page.locator('[data-client-card="Solo"]').getByLabel('TTL (ms)').inputValue()).toBe('4321');
    expect(await page.getByTestId('draft-state').textContent()).toBe('changed since loaded or run');
    expect(await page.getByTestId('confirm').count()).toBe(0);
    await screenshot(page, 'sandbox-kept-1440');
    expect(lab.errors).toEqual([]);
  });

  it('typing in one client of many draws that client’s card again and no other, and checks the scenario once for its PHP', async () => {
    const page = await lab.page('#/sandbox?s=pause-past-expiry', { width: 1440, height: 900 });
    await expect.poll(() => page.getByLabel('Name', { exact: true }).first().inputValue()).toBe('pause-past-expiry');
    const n = 40;
    const many = {
      name: 'many',
      machines: [{ name: 'a' }, { name: 'b' }, { name: 'db' }],
      store: { kind: 'redis', machine: 'db' },
      clients: Array.from({ length: n }, (_, i) => ({ name: `C${i}`, machine: i % 2 === 0 ? 'a' : 'b', ttlMs: 1000 + i })),
    };
    await page.getByTestId('import-scenario').setInputFiles({ name: 'many.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(many)) });
    const php = (i: number) => page.locator(`[data-client-card="C${i}"]`).getByTestId('client-php').locator('pre');
    // Every card shows its client's PHP once the form has settled.
    await expect.poll(() => php(n - 1).textContent()).toContain("createLock('job', 1.039)");
    const tallies = () => page.evaluate(() => window.__locklab!.tallies());
    const before = await tallies();

    await page.locator('[data-client-card="C1"]').getByLabel('TTL (ms)').fill('2001');
    await expect.poll(() => php(1).textContent()).toContain("createLock('job', 2.001)");
    const after = await tallies();
    const drawn = Array.from({ length: n }, (_, i) => i).filter((i) => after[`client-card:${i}`] !== before[`client-card:${i}`]);
    expect(drawn).toEqual([1]);
    expect(after['sandbox-check']! - before['sandbox-check']!).toBe(1);
    // The other cards still show their own clients' PHP.
    expect(await php(0).textContent()).toContain("createLock('job', 1)");
    expect(await php(2).textContent()).toContain("createLock('job', 1.002)");
    expect(lab.errors).toEqual([]);
  });

  it('removing a client that faults are aimed at asks first, and removes them with it', async () => {
    const page = await lab.page('#/sandbox?s=pause-past-expiry');
    await expect.poll(() => page.getByLabel('Name', { exact: true }).first().inputValue()).toBe('pause-past-expiry');
    expect(await page.locator('[data-fault-row]').count()).toBe(1);
    await page.getByRole('button', { name: 'Remove client A' }).click();
    const confirm = page.getByTestId('confirm');
    await confirm.waitFor();
    expect(await confirm.textContent()).toContain('Removing A also removes the faults aimed at it: ');
    await confirm.getByRole('button', { name: 'Remove A and its fault' }).click();
    await expect.poll(() => page.locator('[data-client-card]').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-client-card')))).toEqual(['B']);
    expect(await page.locator('[data-fault-row]').count()).toBe(0);
    // The one client left cannot be removed.
    expect(await page.getByRole('button', { name: 'Remove client B' }).isDisabled()).toBe(true);
    expect(lab.errors).toEqual([]);
  });
});
