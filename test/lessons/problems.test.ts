import { describe, expect, it } from 'vitest';
import { LESSONS_DIR, readCourse } from '../../sim/cli/lessons.js';
import { formatProblem, loadCourse, type LessonFiles } from '../../sim/lessons/index.js';

/*
 * A malformed lesson fails with its file and field, never later in front of
 * a learner. Each case starts from lesson 1 and breaks one thing.
 */

const { files } = readCourse(LESSONS_DIR);
const lesson1 = files.lessons['01-one-machine']!;

function problemsOf(change: (f: Record<string, string>) => void, folder = '01-one-machine'): string[] {
  const broken: Record<string, string> = { ...lesson1 };
  change(broken);
  return loadCourse({ claims: files.claims, lessons: { [folder]: broken as LessonFiles } }, { course: false }).problems.map(formatProblem);
}

const replace = (file: string, from: string, to: string) => (f: Record<string, string>) => {
  if (!f[file]!.includes(from)) throw new Error(`test fixture: ${file} has no ${from}`);
  f[file] = f[file]!.replace(from, to);
};

describe('a malformed lesson', () => {
  it('passes untouched, so every case below fails for its own change', () => {
    expect(problemsOf(() => {})).toEqual([]);
  });

  it('with an unknown claim id names the front matter field', () => {
    expect(problemsOf(replace('lesson.md', 'claims: [C1, C2,', 'claims: [C1, C999, C2,'))).toContainEqual(
      '01-one-machine/lesson.md: front matter.claims[1]: unknown claim id C999; the claims are listed in lessons/claims.yaml',
    );
  });

  it('with a claim nothing covers says so', () => {
    expect(problemsOf(replace('lesson.yaml', '  - claims: [C33]', '  - claims: [C1]'))).toEqual([
      '01-one-machine/lesson.md: front matter.claims[5]: C33 is neither shown by a run (shows), taught in text (textOnly) nor pending in lesson.yaml',
    ]);
  });

  it('with a stop whose query finds no event names the stop', () => {
    expect(problemsOf(replace('lesson.yaml', 'at: { kind: acquire.ok, actor: B }', 'at: { kind: acquire.ok, actor: Nobody }'))).toEqual([
      '01-one-machine/lesson.yaml: stories[0].stops[1].at: finds no event: there is no acquire.ok by Nobody in the run',
    ]);
  });

  it("with lesson 1's old narration, which let A's stale write pass as harmless, names the stop", () => {
    const stop = /( {6}- id: first-write\n[\s\S]*?)( {6}- id: second-write)/.exec(lesson1['lesson.yaml']!)![1]!;
    const old =
      '      - id: first-write\n        at: { kind: write.accepted, actor: resource }\n        text: The first write reaches the shared database. Nothing is wrong yet.\n';
    expect(problemsOf(replace('lesson.yaml', stop, old))).toEqual([
      "01-one-machine/lesson.yaml: stories[0].stops[2].expect: is missing: the stop is at A's write, which the checker flags as stale (accepted); say so in the caption, and hold it to the run with { staleWrite: { client: A, accepted: true } }",
    ]);
  });

  it("with a stop that says nothing is wrong yet at A's stale write names the statement and what the run showed so far", () => {
    expect(
      problemsOf(
        replace(
          'lesson.yaml',
          '          - staleWrite: { client: A, accepted: true }\n          - writes: { accepted: 1 }',
          '          - staleWrite: none\n          - writes: { accepted: 1 }',
        ),
      ),
    ).toEqual([
      "01-one-machine/lesson.yaml: stories[0].stops[2].expect[1]: expected no stale write reaches the resource, but A's stale write (token none) accepted",
      "01-one-machine/lesson.yaml: stories[0].stops[2].expect: is missing: the stop is at A's write, which the checker flags as stale (accepted); say so in the caption, and hold it to the run with { staleWrite: { client: A, accepted: true } }",
    ]);
  });

  it('with a stop that blames the later write for the earlier one names the statement', () => {
    expect(
      problemsOf(
        replace(
          'lesson.yaml',
          '          - writes: { accepted: 2 }\n          - staleWrite: { client: A',
          '          - writes: { accepted: 2 }\n          - staleWrite: { client: B',
        ),
      ),
    ).toEqual(["01-one-machine/lesson.yaml: stories[0].stops[3].expect[1]: expected B's stale write is accepted, but A's stale write (token none) accepted"]);
  });

  it('with a stop that states what only the whole run shows names the statement: a stop sees the run so far', () => {
    expect(problemsOf(replace('lesson.yaml', '          - writes: { accepted: 1 }\n', '          - writes: { accepted: 2 }\n'))).toEqual([
      '01-one-machine/lesson.yaml: stories[0].stops[2].expect[2]: expected the resource accepted 2 writes, but it accepted 1 write and rejected none',
    ]);
  });

  it("with a stop that states how the run stopped says that belongs to the run's end", () => {
    expect(
      problemsOf(replace('lesson.yaml', '          - writes: { accepted: 1 }\n', '          - writes: { accepted: 1 }\n          - stopped: completed\n')),
    ).toEqual([
      "01-one-machine/lesson.yaml: stories[0].stops[2].expect[3]: a stop's statements are about the run so far; how the run stopped belongs to its end",
    ]);
  });

  for (const [field, words, why] of [
    ['notOnSymfony', 'Symfony has no flock store.', 'a story with notReal has no recording at all; say why only once, in notReal'],
    ['racy', 'It hangs on timing.', 'a story with notReal is not played on real servers, so it cannot be racy there; keep one of the two'],
  ] as const) {
    it(`with a story that has no real recording (notReal) and says ${field} too names ${field}`, () => {
      expect(problemsOf(replace('lesson.yaml', '    notReal: ', `    ${field}: ${words}\n    notReal: `))).toEqual([
        `01-one-machine/lesson.yaml: stories[0].${field}: ${why}`,
      ]);
    });
  }

  it('with an empty reason for having no real recording names the field', () => {
    expect(problemsOf(replace('lesson.yaml', / {4}notReal: .*\n/.exec(lesson1['lesson.yaml']!)![0], "    notReal: ''\n"))).toEqual([
      expect.stringMatching(/^01-one-machine\/lesson\.yaml: stories\[0\]\.notReal: /),
    ]);
  });

  it('with a quiz question with two right answers names its options', () => {
    const two = problemsOf(
      replace(
        'lesson.yaml',
        '      - text: It is too slow for production traffic, so requests time out waiting for it.\n        correct: false',
        '      - text: It is too slow for production traffic, so requests time out waiting for it.\n        correct: true',
      ),
    );
    expect(two).toEqual(['01-one-machine/lesson.yaml: quiz[0].options: has 2 right answers; a question has exactly one unless it is marked multi: true']);
  });

  it('with a right answer more than twice as long as every wrong one names its options', () => {
    const long = problemsOf((f) => {
      for (const wrong of [
        'It is too slow for production traffic, so requests time out waiting for it.',
        'It cannot be called from PHP-FPM workers, only from command-line scripts.',
      ])
        replace('lesson.yaml', `      - text: ${wrong}\n`, '      - text: It is slow.\n')(f);
    });
    expect(long).toEqual([
      '01-one-machine/lesson.yaml: quiz[0].options: has a right answer of 81 characters, more than 2 times its longest wrong one (36): its length gives it away',
    ]);
  });

  it('with a prediction the replayed run contradicts names the option', () => {
    const p = problemsOf((f) => {
      replace('lesson.yaml', 'correct: true\n        why: Both workers ask', 'correct: false\n        why: Both workers ask')(f);
      replace('lesson.yaml', 'correct: false\n        why: That happens across', 'correct: true\n        why: That happens across')(f);
    });
    expect(p).toEqual([
      '01-one-machine/lesson.yaml: quiz[1].options[0]: is marked wrong, but the replayed run shows exactly what it predicts',
      '01-one-machine/lesson.yaml: quiz[1].options[1]: is marked right, but the replayed run does not bear it out: expected A and B both believe they hold the lock, but no double ownership',
    ]);
  });

  it('with a challenge whose solution does not pass names the solution', () => {
    expect(problemsOf(replace('lesson.yaml', 'clients.new.startMs: 5500 }\n    explain', 'clients.new.startMs: 1000 }\n    explain'))).toEqual([
      '01-one-machine/lesson.yaml: challenges[0].solution: does not solve the challenge with seed 1: expected the outcome is safe, but the outcome is unsafe',
    ]);
  });

  it('with a statement the run does not bear out says what the run showed', () => {
    expect(problemsOf(replace('lesson.yaml', 'minMs: 120000 }', 'minMs: 200000 }'))).toEqual([
      '01-one-machine/lesson.yaml: shows[1].expect[1]: expected from the first acquire.ok by A to the first acquire.ok by B takes at least 200 s, but it takes 120.003 s',
    ]);
  });

  it('with an unknown statement lists the vocabulary', () => {
    const p = problemsOf(
      replace(
        'lesson.yaml',
        '      - outcome: safe\n      - doubleOwnership: none\n      - event: { kind: lock.queued',
        '      - verdict: safe\n      - doubleOwnership: none\n      - event: { kind: lock.queued',
      ),
    );
    expect(p[0]).toMatch(/^01-one-machine\/lesson.yaml: shows\[0\].expect\[0\].verdict: unknown statement; expected one of: outcome, doubleOwnership/);
  });

  it('with a lock-out statement of the wrong shape names its field', () => {
    expect(
      problemsOf(
        replace(
          'lesson.yaml',
          '      - outcome: safe\n      - doubleOwnership: none\n      - event: { kind: lock.queued',
          '      - lockOut: { client: B, minSec: 5 }\n      - doubleOwnership: none\n      - event: { kind: lock.queued',
        ),
      ),
    ).toEqual(['01-one-machine/lesson.yaml: shows[0].expect[0].lockOut.minSec: unknown field; expected one of: client, minMs, maxMs']);
  });

  it('with broken YAML gives the line', () => {
    const p = problemsOf(replace('lesson.yaml', 'scenarios:\n', 'scenarios: [\n'));
    expect(p[0]).toMatch(/^01-one-machine\/lesson.yaml: line \d+: is not valid YAML/);
  });

  it('with an unknown embed or an id that does not exist names the line', () => {
    const p = problemsOf(
      replace('lesson.md', '::challenge{id=safe-rolling-update}', '::widget{id=x}\n\n::story{id=nope}\n\n::challenge{id=safe-rolling-update}'),
    );
    expect(p).toContainEqual(expect.stringMatching(/lesson.md: line \d+: unknown embed ::widget/));
    expect(p).toContainEqual(expect.stringMatching(/lesson.md: line \d+: ::story\{id=nope\} names no story of lesson.yaml \(across-servers\)/));
  });

  it("with a heading or an embed that does not fit the page's outline (title h1, steps h2, embeds h3) names the line", () => {
    const p = problemsOf(
      replace('lesson.md', '## A lock the kernel keeps\n', '::quiz\n\n# The title again\n\n### Too deep\n\n## A lock the kernel keeps\n\n#### Deeper still\n'),
    );
    expect(p).toEqual([
      expect.stringMatching(/lesson.md: line 10: "# The title again" would be a second title beside the lesson's own; a step is "## The title again"/),
      expect.stringMatching(/lesson.md: line 12: "### Too deep" skips a level after the lesson's title; use ##/),
      expect.stringMatching(/lesson.md: line 16: "#### Deeper still" skips a level after a ## heading; use ###/),
      expect.stringMatching(/lesson.md: line 8: ::quiz comes before the first step; put a "## " heading above it/),
    ]);
  });

  it('with a colon read as a directive says how to escape it', () => {
    const p = problemsOf(replace('lesson.md', 'Picture a nightly cron job', 'At 10:30 picture a nightly cron job'));
    expect(p).toContainEqual(expect.stringMatching(/lesson.md: line \d+: reads ":30" as a directive/));
  });

  it('with a scenario file missing or invalid names the file', () => {
    expect(problemsOf((f) => delete f['rolling-update.json'])).toEqual([
      '01-one-machine/lesson.yaml: scenarios.rolling.file: names rolling-update.json, which is not in the folder',
    ]);
    const p = problemsOf(replace('rolling-update.json', '"workMs": 5000', '"workMs": "long"'));
    expect(p[0]).toMatch(/^01-one-machine\/rolling-update.json: clients\[0\].workMs: expected a number/);
  });

  it('with a folder name that does not match its id says which', () => {
    expect(problemsOf(() => {}, '01-other')).toContainEqual('01-other/lesson.md: front matter.id: is "one-machine", but the folder says "other"');
  });

  it('with a caption quoting a field its event lacks names the caption', () => {
    expect(problemsOf(replace('lesson.yaml', 'text: A, on app1, locks', 'text: A ({fence}) on app1 locks'))).toEqual([
      '01-one-machine/lesson.yaml: stories[0].stops[0].text: quotes {fence}, which event 3 (acquire.ok) does not have',
    ]);
  });
});

describe("a lesson's sweep", () => {
  const sweep = (fields: Record<string, string>) =>
    [
      'sweeps:',
      ...Object.entries({
        id: 'how-often',
        title: 'How often?',
        scenario: 'random-gc-pauses',
        vary: "['clients[*].ttlMs=10000,30000,60000']",
        runs: '200',
        caption: 'Random GC pauses against three TTLs.',
        ...fields,
      }).map(([k, v], i) => `${i === 0 ? '  - ' : '    '}${k}: ${v}`),
      '',
    ].join('\n');
  /** Lesson 1 with a sweep in lesson.yaml and, unless `placed` is false, its embed in the text. */
  const withSweep =
    (fields: Record<string, string> = {}, placed: string | null = '::sweep{id=how-often}') =>
    (f: Record<string, string>) => {
      f['lesson.yaml'] = `${f['lesson.yaml']!}\n${sweep(fields)}`;
      if (placed !== null) replace('lesson.md', '## Check yourself\n', `${placed}\n\n## Check yourself\n`)(f);
    };
  const only = (fields: Record<string, string>) => problemsOf(withSweep(fields));

  it('is read with its fields when the sweep would run and is placed', () => {
    const { files: all } = readCourse(LESSONS_DIR);
    const broken: Record<string, string> = { ...all.lessons['01-one-machine']! };
    withSweep()(broken);
    const loaded = loadCourse({ claims: all.claims, lessons: { '01-one-machine': broken as LessonFiles } }, { course: false, replay: false });
    expect(loaded.problems).toEqual([]);
    expect(loaded.lessons[0]!.sweeps).toEqual([
      {
        id: 'how-often',
        title: 'How often?',
        scenario: 'random-gc-pauses',
        vary: ['clients[*].ttlMs=10000,30000,60000'],
        runs: 200,
        caption: 'Random GC pauses against three TTLs.',
      },
    ]);
  });

  it('naming a scenario that is not built in names its scenario field', () => {
    expect(only({ scenario: 'gc-pause' })).toEqual([
      expect.stringMatching(
        /^01-one-machine\/lesson.yaml: sweeps\[0\].scenario: names no built-in scenario .*; expected one of pause-past-expiry, .*random-gc-pauses/,
      ),
    ]);
  });

  it('varying a field in a way locklab sweep --vary refuses names the vary with the parser’s own words', () => {
    expect(only({ vary: "['clients[*].ttlMs=10000..60000:0']" })).toEqual([
      '01-one-machine/lesson.yaml: sweeps[0].vary[0]: clients[*].ttlMs: the step of 10000..60000:0 is zero: give a step above zero (e.g. 10000..60000:1)',
    ]);
    expect(only({ vary: "['clients[*].ttlMs']" })).toEqual([
      '01-one-machine/lesson.yaml: sweeps[0].vary[0]: expected path=from..to:step or path=v1,v2 (e.g. clients.A.ttlMs=5000..30000:5000), got "clients[*].ttlMs"',
    ]);
  });

  it('varying a path the scenario lacks, with values it refuses, or twice names that vary as the sweep’s plan does', () => {
    expect(only({ vary: "['resource.fencing=false,true', 'clients.Z.ttlMs=1000']" })).toEqual([
      '01-one-machine/lesson.yaml: sweeps[0].vary[1]: clients.Z.ttlMs: clients has no item "Z" (items: A, B, C)',
    ]);
    expect(only({ vary: "['resource.fencing=1,0']" })).toEqual(['01-one-machine/lesson.yaml: sweeps[0].vary[0]: resource.fencing: expected a boolean, got 1']);
    expect(only({ vary: "['clients[*].ttlMs=1000', 'clients[*].ttlMs=2000']" })).toEqual([
      '01-one-machine/lesson.yaml: sweeps[0].vary[1]: clients[*].ttlMs: is varied twice: give each path once',
    ]);
  });

  it('varying more fields than the Odds view takes names the vary list', () => {
    expect(only({ vary: "['clients[*].ttlMs=1000', 'resource.fencing=false,true', 'clients.A.workTime.meanMs=1000']" })).toEqual([
      '01-one-machine/lesson.yaml: sweeps[0].vary: varies 3 fields; the Odds view varies at most 2',
    ]);
  });

  it('with a runs count outside what the Odds view runs names its runs field', () => {
    expect(only({ runs: '0' })).toEqual(['01-one-machine/lesson.yaml: sweeps[0].runs: must be at least 1, got 0']);
    expect(only({ runs: '666667' })).toEqual([
      '01-one-machine/lesson.yaml: sweeps[0].runs: is 666,667 runs for each of 3 points, 2,000,001 in all, more than the Odds view takes (2,000,000)',
    ]);
    expect(only({ runs: '666666' })).toEqual([]);
  });

  it('never placed, or placed by an id lesson.yaml does not define, is named in the text', () => {
    expect(problemsOf(withSweep({}, null))).toEqual(['01-one-machine/lesson.md: (body): sweep how-often is never placed; add ::sweep{id=how-often}']);
    expect(problemsOf(withSweep({}, '::sweep{id=how-often}\n\n::sweep{id=how-rare}'))).toEqual([
      expect.stringMatching(/^01-one-machine\/lesson.md: line \d+: ::sweep\{id=how-rare\} names no sweep of lesson.yaml \(how-often\)$/),
    ]);
  });
});
