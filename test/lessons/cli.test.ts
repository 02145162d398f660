import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadLessons, LESSONS_DIR, problemsOfLesson } from '../../sim/cli/lessons.js';
import { optionOrder, storyAskKey } from '../../sim/lessons/option-order.js';
import { sweepCommand } from '../../sim/lessons/sweeps.js';
import { cli } from '../support/cli.js';

const work = mkdtempSync(join(tmpdir(), 'locklab-lessons-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('locklab lessons', () => {
  it('--json lists each lesson with its claims and counts', async () => {
    const r = await cli('lessons', '--json');
    expect(r.code).toBe(0);
    const list = JSON.parse(r.out) as Array<Record<string, unknown>>;
    expect(list).toHaveLength(12);
    expect(list[3]).toEqual({
      number: 4,
      id: 'pause-past-expiry',
      title: 'Pause past expiry',
      claims: ['C15', 'C16', 'C17', 'C18', 'C69'],
      questions: 6,
      predictions: 1,
      stories: 1,
      stops: 8,
      challenges: 2,
    });
  });

  it('lists them in words without --json', async () => {
    const r = await cli('lessons');
    expect(r.out).toContain(' 4  Pause past expiry  pause-past-expiry');
    expect(r.out).toContain('claims C15 C16 C17 C18 C69 · 6 questions, 1 prediction, 1 story (8 stops), 2 challenges');
  });

  it('check passes the shipped lessons and reports what is pending', async () => {
    const r = await cli('lessons', 'check');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('12 lessons checked');
    expect(r.out).toContain('68 claims shown by runs; taught in text only: C43, C46, C47, C49, C62; pending: none.');
  });

  it('check of a broken lesson folder prints each problem with file and field, and exits 2', async () => {
    const dir = join(work, '04-pause-past-expiry');
    cpSync(join(LESSONS_DIR, '04-pause-past-expiry'), dir, { recursive: true });
    const data = join(dir, 'lesson.yaml');
    writeFileSync(data, readFileSync(data, 'utf8').replace('at: { kind: process.pause, actor: A }', 'at: { kind: process.pause, actor: Z }'));
    const r = await cli('lessons', 'check', dir);
    expect(r.code).toBe(2);
    expect(r.err).toContain('locklab: 04-pause-past-expiry/lesson.yaml: stories[0].stops[1].at: finds no event: there is no process.pause by Z in the run');
    expect(r.err).toContain('locklab: 1 problem found');
  });

  it("check of a lesson whose sweep varies a field as locklab sweep would not names the sweep's field, and exits 2", async () => {
    const dir = join(work, 'sweep', '04-pause-past-expiry');
    cpSync(join(LESSONS_DIR, '04-pause-past-expiry'), dir, { recursive: true });
    const data = join(dir, 'lesson.yaml');
    const text = readFileSync(data, 'utf8');
    expect(text).toContain("vary: ['clients[*].ttlMs=10000,30000,60000']");
    writeFileSync(data, text.replace("vary: ['clients[*].ttlMs=10000,30000,60000']", "vary: ['clients[*].ttlMs=60000..10000:10000']"));
    const r = await cli('lessons', 'check', dir);
    expect(r.code).toBe(2);
    expect(r.err).toContain(
      'locklab: 04-pause-past-expiry/lesson.yaml: sweeps[0].vary[0]: clients[*].ttlMs: the range 60000..10000:10000 is empty: 10000 is below 60000 (write from..to with from <= to)',
    );
    writeFileSync(data, text.replace('scenario: random-gc-pauses', 'scenario: random-gc-pause'));
    const unknown = await cli('lessons', 'check', dir);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('locklab: 04-pause-past-expiry/lesson.yaml: sweeps[0].scenario: names no built-in scenario');
  });

  it('check of a folder that holds no lesson exits 2 and says so', async () => {
    const r = await cli('lessons', 'check', work + '/nothing-here');
    expect(r.code).toBe(2);
    expect(r.err).toContain('is not a folder');
  });
});

describe('locklab lesson N', () => {
  it("narrates lesson 4's story stop by stop, ending with the fenced rejection", async () => {
    const r = await cli('lesson', '4');
    expect(r.code).toBe(0);
    expect(r.out).toContain('Lesson 4: Pause past expiry');
    expect(r.out).toContain('▶ A takes the lock with a 10 s lease and fencing token 33.');
    expect(r.out).toContain('? A wakes up at 16 s. What does it do next?');
    // The options in the order the lab shows them, lettered so, the right one marked wherever it lands.
    const lesson = loadLessons(LESSONS_DIR, false).lessons.find((l) => l.number === 4)!;
    const story = lesson.stories[0]!;
    for (const stop of story.stops) {
      if (stop.ask === undefined) continue;
      const shown = optionOrder(lesson.id, storyAskKey(story.id, stop.id), stop.ask.options.length).map((k) => stop.ask!.options[k]!);
      const at = r.out.indexOf(stop.ask.prompt);
      shown.forEach((o, i) => {
        const line = `    ${String.fromCharCode(97 + i)}) ${o.text}${o.correct ? '  ← this one' : ''}\n`;
        expect(r.out.indexOf(line, at), line).toBeGreaterThan(at);
      });
    }
    expect(r.out).toContain('— the same story again, with resource.fencing=true —');
    expect(r.out).toContain("A's write is rejected, 33 < 34.");
    expect(r.out.indexOf("B's next try succeeds")).toBeLessThan(r.out.indexOf('33 < 34'));
    expect(r.out).toContain('Outcome: fenced');
    // Each "try this" after the story: what it shows, the outcome of its run, and the command that runs it, which gives that outcome.
    expect(r.out).toContain('Try this: The resource checks fencing tokens (outcome: fenced)');
    expect(r.out).toContain('Try this: Make the pause 5 s (outcome: safe)');
    const line = r.out.split('\n').find((l) => l.includes("--set 'faults[0].durationMs=5000'"))!;
    expect(line.trim()).toBe("locklab run lessons/04-pause-past-expiry/gc-pause.json --seed 7 --set 'faults[0].durationMs=5000'");
    const tried = await cli('run', 'lessons/04-pause-past-expiry/gc-pause.json', '--seed', '7', '--set', 'faults[0].durationMs=5000', '--json');
    expect((JSON.parse(tried.out) as { verdict: { outcome: string } }).verdict.outcome).toBe('safe');
  });

  it("ends lesson 4 with its sweep: the caption and the locklab sweep command, quoted so that a shell passes each word as the sweep's own", async () => {
    const r = await cli('lesson', '4');
    expect(r.code).toBe(0);
    const lesson = loadLessons(LESSONS_DIR, false).lessons.find((l) => l.number === 4)!;
    const sweep = lesson.sweeps[0]!;
    const end = r.out.slice(r.out.lastIndexOf('Outcome: '));
    expect(end).toContain(`Sweep: ${sweep.title}\n  ${sweep.caption}\n  Run it: `);
    const command = /^ {2}Run it: (.*)$/m.exec(end)![1]!;
    expect(command).toBe("locklab sweep random-gc-pauses --seeds 1..200 --vary 'clients[*].ttlMs=10000,30000,60000'");
    // The shell's own reading of the line: the words locklab receives, with [*] left alone rather than matched against file names.
    const words = (line: string) =>
      execFileSync('sh', ['-c', `printf '%s\\n' ${line}`], { cwd: work, encoding: 'utf8' })
        .trimEnd()
        .split('\n');
    writeFileSync(join(work, 'clients*.ttlMs=10000,30000,60000'), '');
    expect(words(command)).toEqual(['locklab', 'sweep', sweep.scenario, `--seeds`, `1..${sweep.runs}`, '--vary', sweep.vary[0]]);
    // A value with a quote and a space in it comes through whole.
    const odd = sweepCommand({ ...sweep, vary: ["store.kind=it's a,b"] });
    expect(words(odd).slice(-2)).toEqual(['--vary', "store.kind=it's a,b"]);
    // A story picked out alone is told alone.
    const one = await cli('lesson', '4', '--story', '1');
    expect(one.out).not.toContain('How often?');
  });

  it('narrates every story of a lesson that has several, in order, or the one --story names', async () => {
    const all = await cli('lesson', '6');
    expect(all.code).toBe(0);
    const first = all.out.indexOf('Story 1 of 2');
    const second = all.out.indexOf('Story 2 of 2');
    expect(first).toBeGreaterThan(-1);
    expect(second).toBeGreaterThan(first);
    expect(all.out.indexOf("The release that deleted someone else's lock")).toBeGreaterThan(first);
    expect(all.out.indexOf('The child that let go')).toBeGreaterThan(second);
    expect(all.out.match(/^Outcome: /gm)).toHaveLength(2);
    // By id or by number, one story alone.
    for (const which of ['asked', '2']) {
      const one = await cli('lesson', '7', '--story', which);
      expect(one.code).toBe(0);
      expect(one.out).toContain('Story 2 of 3');
      expect(one.out).toContain('Asking is not holding');
      expect(one.out).not.toContain('Story 1 of 3');
      expect(one.out.match(/^Outcome: /gm)).toHaveLength(1);
    }
    const bad = await cli('lesson', '7', '--story', '9');
    expect(bad.code).toBe(2);
    expect(bad.out).toBe('');
    expect(bad.err).toContain('locklab: --story: lesson 7 has no story "9"; its stories are 1 (refresh), 2 (asked), 3 (late-grant)');
  });

  it('narrates a lesson folder of your own, and names the problems of a broken one rather than calling it missing', async () => {
    const dir = join(work, 'own', '04-pause-past-expiry');
    cpSync(join(LESSONS_DIR, '04-pause-past-expiry'), dir, { recursive: true });
    const good = await cli('lesson', dir);
    expect(good.err).toBe('');
    expect(good.code).toBe(0);
    expect(good.out).toContain('▶ A takes the lock with a 10 s lease and fencing token 33.');
    const data = join(dir, 'lesson.yaml');
    // A caption with ": " in it, unquoted: the YAML mistake an author makes first.
    writeFileSync(data, readFileSync(data, 'utf8').replace('It did everything right.', 'It did everything right: it wrote and left.'));
    const bad = await cli('lesson', dir);
    expect(bad.code).toBe(2);
    expect(bad.out).toBe('');
    expect(bad.err).toMatch(/^locklab: 04-pause-past-expiry\/lesson\.yaml: line \d+: is not valid YAML/);
    expect(bad.err).toContain('locklab: lesson ' + dir + ' cannot be narrated until this problem is fixed');
    expect(bad.err).not.toContain('no lesson');
  });

  it("narrates a shipped lesson named by its folder, as the lab's address names it", async () => {
    const r = await cli('lesson', '04-pause-past-expiry', '--story', '1');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('Lesson 4: Pause past expiry');
  });

  it('picks out the problems of the lesson named by number, id or folder', () => {
    const problems = [
      { file: '04-pause-past-expiry/lesson.yaml', field: 'line 86', message: 'is not valid YAML' },
      { file: '14-pause-again/lesson.md', field: 'title', message: 'is missing' },
      { file: 'claims.yaml', field: 'C1', message: 'no lesson shows it' },
    ];
    expect(problemsOfLesson(problems, '4')).toEqual([problems[0]]);
    expect(problemsOfLesson(problems, '04')).toEqual([problems[0]]);
    expect(problemsOfLesson(problems, 'pause-past-expiry')).toEqual([problems[0]]);
    expect(problemsOfLesson(problems, '04-pause-past-expiry')).toEqual([problems[0]]);
    expect(problemsOfLesson(problems, '14')).toEqual([problems[1]]);
    expect(problemsOfLesson(problems, '1')).toEqual([]);
  });

  it('refuses a folder that is no lesson, exit 2', async () => {
    const r = await cli('lesson', work);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`locklab: ${work} is not a lesson folder (one with a lesson.md)\n`);
  });

  it('refuses an unknown lesson with the list, exit 2', async () => {
    const r = await cli('lesson', '13');
    expect(r.code).toBe(2);
    expect(r.err).toContain('no lesson "13"; the lessons are 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12');
  });
});
