import { parseDocument } from 'yaml';
import { InputError } from '../errors.js';
import { normalizeScenario } from '../scenario/normalize.js';
import { compileSchema } from '../scenario/schema-check.js';
import { EMBEDS, outline, stepAnchor } from './markdown.js';
import { frontMatterSchema, lessonDataSchema } from './schema.js';
import { queriesOf, statementIssues } from './statements.js';
import { sweepIssues } from './sweeps.js';
import type { Challenge, Expect, Lesson, LessonCounts, LessonProblem, LessonScenario, Question, Shows, Story, Sweep } from './types.js';

/** How many times longer than its longest wrong option a single right answer may be before its length gives it away. */
export const ANSWER_LENGTH_RATIO_MAX = 2;
/** The files of a lesson folder: lesson.md, lesson.yaml and its scenario JSON files, by name. */
export type LessonFiles = Readonly<Record<string, string>>;

export const LESSON_MD = 'lesson.md';
export const LESSON_DATA = 'lesson.yaml';
export const FOLDER_PATTERN = /^(\d{2})-([a-z0-9][a-z0-9-]*)$/;

let checkFront: ((d: unknown) => { path: string; message: string }[]) | undefined;
let checkData: ((d: unknown) => { path: string; message: string }[]) | undefined;
let checkQuery: ((d: unknown) => { path: string; message: string }[]) | undefined;

/** Reads YAML, reporting a syntax error with its line. */
function readYaml(text: string, file: string, firstLine: number, problems: LessonProblem[]): unknown {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    for (const err of doc.errors) {
      const line = (err.linePos?.[0]?.line ?? 0) + firstLine;
      problems.push({ file, field: `line ${line}`, message: `is not valid YAML: ${err.message.split('\n')[0]}` });
    }
    return undefined;
  }
  return doc.toJS();
}

/** Splits `---\nfront matter\n---\nbody`; the body keeps its line numbers known. */
function splitFrontMatter(text: string): { front: string; body: string; bodyLine: number } | undefined {
  const m = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (m === null) return undefined;
  const front = m[1]!;
  return { front, body: text.slice(m[0].length), bodyLine: front.split('\n').length + 2 };
}

function pushIssues(problems: LessonProblem[], file: string, prefix: string, issues: readonly { path: string; message: string }[]): void {
  for (const i of issues)
    problems.push({ file, field: i.path === '' ? prefix || '(top level)' : prefix === '' ? i.path : `${prefix}.${i.path}`, message: i.message });
}

interface RawData {
  scenarios: Record<string, { file: string; seed: number }>;
  shows: Shows[];
  stories?: Array<Omit<Story, 'tries'> & { tries?: Story['tries'] }>;
  quiz: Array<Omit<Question, 'multi'> & { multi?: boolean }>;
  challenges?: Challenge[];
  sweeps?: Sweep[];
  textOnly?: Lesson['textOnly'];
  pending?: Lesson['pending'];
}

/**
 * Reads a lesson folder's files into a lesson, with every problem a reader
 * can find without running a scenario: the shape of each file, ids that must
 * exist and be unique, one right answer per question, claims that must be
 * covered. `checkLesson` does the rest by replaying the runs.
 */
export function parseLesson(folder: string, files: LessonFiles, knownClaims: ReadonlySet<string>): { lesson: Lesson | undefined; problems: LessonProblem[] } {
  const problems: LessonProblem[] = [];
  const mdFile = `${folder}/${LESSON_MD}`;
  const dataFile = `${folder}/${LESSON_DATA}`;
  const problem = (file: string, field: string, message: string) => problems.push({ file, field, message });

  const folderMatch = FOLDER_PATTERN.exec(folder);
  if (folderMatch === null) problem(folder, 'folder name', 'expected NN-id, two digits and the lesson id, e.g. 04-pause-past-expiry');

  const md = files[LESSON_MD];
  const dataText = files[LESSON_DATA];
  if (md === undefined) problem(mdFile, '(file)', 'is missing');
  if (dataText === undefined) problem(dataFile, '(file)', 'is missing');
  if (md === undefined || dataText === undefined) return { lesson: undefined, problems };

  const split = splitFrontMatter(md);
  if (split === undefined) {
    problem(mdFile, 'front matter', 'expected the file to start with a YAML front matter between two --- lines');
    return { lesson: undefined, problems };
  }
  const front = readYaml(split.front, mdFile, 1, problems) as Record<string, unknown> | undefined;
  const data = readYaml(dataText, dataFile, 0, problems) as RawData | undefined;
  if (front === undefined || data === undefined) return { lesson: undefined, problems };

  checkFront ??= compileSchema(frontMatterSchema);
  checkData ??= compileSchema(lessonDataSchema);
  checkQuery ??= compileSchema({ ...lessonDataSchema.definitions.query, definitions: lessonDataSchema.definitions });
  const before = problems.length;
  pushIssues(problems, mdFile, 'front matter', checkFront(front));
  pushIssues(problems, dataFile, '', checkData(data));
  if (problems.length > before) return { lesson: undefined, problems };

  const meta = front as unknown as { id: string; title: string; summary: string; prerequisites?: string[]; claims: string[] };
  if (folderMatch !== null && folderMatch[2] !== meta.id)
    problem(mdFile, 'front matter.id', `is ${JSON.stringify(meta.id)}, but the folder says ${JSON.stringify(folderMatch[2])}`);
  const claims = new Set(meta.claims);
  meta.claims.forEach((c, i) => {
    if (!knownClaims.has(c)) problem(mdFile, `front matter.claims[${i}]`, `unknown claim id ${c}; the claims are listed in lessons/claims.yaml`);
  });

  // Scenario files, normalized once here so that a broken one is reported with its own file and path.
  const scenarios: Record<string, LessonScenario> = {};
  for (const [sid, s] of Object.entries(data.scenarios)) {
    const text = files[s.file];
    if (text === undefined) {
      problem(dataFile, `scenarios.${sid}.file`, `names ${s.file}, which is not in the folder`);
      continue;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      problem(`${folder}/${s.file}`, '(file)', `is not valid JSON: ${(err as Error).message}`);
      continue;
    }
    try {
      normalizeScenario(raw, `${folder}/${s.file}`);
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      pushIssues(problems, `${folder}/${s.file}`, '', err.issues);
      continue;
    }
    scenarios[sid] = { file: s.file, seed: s.seed, raw };
  }
  const scenarioRef = (field: string, id: string) => {
    if (data.scenarios[id] === undefined)
      problem(dataFile, field, `names scenario ${JSON.stringify(id)}, which lesson.yaml's scenarios do not list (${Object.keys(data.scenarios).join(', ')})`);
  };

  const statements = (xs: readonly Expect[], field: string) =>
    xs.forEach((x, i) => {
      const issues = statementIssues(x, `${field}[${i}]`);
      pushIssues(problems, dataFile, '', issues);
      if (issues.length === 0) for (const q of queriesOf(x, `${field}[${i}]`)) pushIssues(problems, dataFile, q.path, checkQuery!(q.query));
    });
  const options = (opts: Question['options'], field: string, multi: boolean, predict: boolean) => {
    const right = opts.filter((o) => o.correct).length;
    if (!multi && right !== 1) problem(dataFile, `${field}.options`, `has ${right} right answers; a question has exactly one unless it is marked multi: true`);
    if (multi && right === 0) problem(dataFile, `${field}.options`, 'has no right answer');
    // A right answer far longer than every wrong one gives itself away, as the first place did before options were shuffled.
    const rightText = opts.find((o) => o.correct)?.text;
    const longestWrong = Math.max(0, ...opts.filter((o) => !o.correct).map((o) => o.text.length));
    if (!multi && right === 1 && rightText !== undefined && longestWrong > 0 && rightText.length > ANSWER_LENGTH_RATIO_MAX * longestWrong)
      problem(
        dataFile,
        `${field}.options`,
        `has a right answer of ${rightText.length} characters, more than ${ANSWER_LENGTH_RATIO_MAX} times its longest wrong one (${longestWrong}): its length gives it away`,
      );
    opts.forEach((o, i) => {
      if (predict && o.expect === undefined)
        problem(dataFile, `${field}.options[${i}].expect`, 'is required in a prediction: what the replayed run shows when this option is what happens');
      if (!predict && o.expect !== undefined) problem(dataFile, `${field}.options[${i}].expect`, 'belongs to predictions only (add predict: to the question)');
      if (o.expect !== undefined) statements(o.expect, `${field}.options[${i}].expect`);
    });
  };
  const unique = (ids: readonly string[], field: string) => {
    const seen = new Set<string>();
    ids.forEach((id, i) => {
      if (seen.has(id)) problem(dataFile, `${field}[${i}].id`, `repeats the id ${JSON.stringify(id)}`);
      seen.add(id);
    });
  };

  // What the runs show, and which claims they back.
  const covered = new Set<string>();
  const claimRef = (c: string, field: string) => {
    if (!claims.has(c)) problem(dataFile, field, `names ${c}, which the front matter's claims do not list`);
    covered.add(c);
  };
  data.shows.forEach((s, i) => {
    scenarioRef(`shows[${i}].scenario`, s.scenario);
    s.claims.forEach((c, j) => claimRef(c, `shows[${i}].claims[${j}]`));
    statements(s.expect, `shows[${i}].expect`);
  });
  const textOnly = data.textOnly ?? [];
  const pending = data.pending ?? [];
  textOnly.forEach((t, i) => claimRef(t.claim, `textOnly[${i}].claim`));
  pending.forEach((p, i) => claimRef(p.claim, `pending[${i}].claim`));
  meta.claims.forEach((c, i) => {
    if (!covered.has(c))
      problem(mdFile, `front matter.claims[${i}]`, `${c} is neither shown by a run (shows), taught in text (textOnly) nor pending in lesson.yaml`);
  });

  const stories: Story[] = (data.stories ?? []).map((s) => ({ ...s, tries: s.tries ?? [] }));
  unique(
    stories.map((s) => s.id),
    'stories',
  );
  stories.forEach((s, i) => {
    scenarioRef(`stories[${i}].scenario`, s.scenario);
    if (s.notReal !== undefined && s.notOnSymfony !== undefined)
      problem(dataFile, `stories[${i}].notOnSymfony`, 'a story with notReal has no recording at all; say why only once, in notReal');
    if (s.notReal !== undefined && s.racy !== undefined)
      problem(dataFile, `stories[${i}].racy`, 'a story with notReal is not played on real servers, so it cannot be racy there; keep one of the two');
    unique(
      s.stops.map((t) => t.id),
      `stories[${i}].stops`,
    );
    unique(
      s.tries.map((t) => t.id),
      `stories[${i}].tries`,
    );
    s.stops.forEach((t, j) => {
      if (t.ask !== undefined) options(t.ask.options, `stories[${i}].stops[${j}].ask`, t.ask.multi === true, false);
      if (t.expect !== undefined) statements(t.expect, `stories[${i}].stops[${j}].expect`);
      t.expect?.forEach((x, k) => {
        if ('stopped' in x)
          problem(dataFile, `stories[${i}].stops[${j}].expect[${k}]`, "a stop's statements are about the run so far; how the run stopped belongs to its end");
      });
    });
    s.tries.forEach((t, j) => statements(t.expect, `stories[${i}].tries[${j}].expect`));
  });

  const quiz: Question[] = data.quiz.map((q) => ({ ...q, multi: q.multi === true }));
  unique(
    quiz.map((q) => q.id),
    'quiz',
  );
  quiz.forEach((q, i) => {
    if (q.predict !== undefined) scenarioRef(`quiz[${i}].predict.scenario`, q.predict.scenario);
    options(q.options, `quiz[${i}]`, q.multi, q.predict !== undefined);
  });

  const challenges = data.challenges ?? [];
  unique(
    challenges.map((c) => c.id),
    'challenges',
  );
  challenges.forEach((c, i) => checkChallengeShape(c, `challenges[${i}]`, problem.bind(null, dataFile), scenarioRef, statements));

  const sweeps = data.sweeps ?? [];
  unique(
    sweeps.map((s) => s.id),
    'sweeps',
  );
  sweeps.forEach((s, i) => pushIssues(problems, dataFile, `sweeps[${i}]`, sweepIssues(s)));

  // The body: every embed names something that exists, and everything is placed somewhere.
  const { directives, headings } = outline(split.body, split.bodyLine - 1);
  const placed = { story: new Set<string>(), question: new Set<string>(), challenge: new Set<string>(), sweep: new Set<string>() };
  let quizPlaced = false;
  const known = {
    story: new Set(stories.map((s) => s.id)),
    question: new Set(quiz.map((q) => q.id)),
    challenge: new Set(challenges.map((c) => c.id)),
    sweep: new Set(sweeps.map((s) => s.id)),
  };
  for (const d of directives) {
    const field = `line ${d.line}`;
    if (d.form === 'text') {
      problem(mdFile, field, `reads ":${d.name}" as a directive; write "\\:" if you meant a colon followed by a word`);
      continue;
    }
    if (!(EMBEDS as readonly string[]).includes(d.name) || d.form !== 'leaf') {
      problem(mdFile, field, `unknown embed ${d.form === 'container' ? ':::' : '::'}${d.name}; expected one of ${EMBEDS.map((e) => `::${e}`).join(', ')}`);
      continue;
    }
    if (d.name === 'quiz') {
      quizPlaced = true;
      continue;
    }
    const kind = d.name as 'story' | 'question' | 'challenge' | 'sweep';
    if (d.id === undefined) problem(mdFile, field, `::${kind} needs an id, e.g. ::${kind}{id=…}`);
    else if (!known[kind].has(d.id))
      problem(mdFile, field, `::${kind}{id=${d.id}} names no ${kind} of lesson.yaml (${[...known[kind]].join(', ') || 'there are none'})`);
    else placed[kind].add(d.id);
  }
  for (const s of stories) if (!placed.story.has(s.id)) problem(mdFile, '(body)', `story ${s.id} is never placed; add ::story{id=${s.id}}`);
  for (const c of challenges) if (!placed.challenge.has(c.id)) problem(mdFile, '(body)', `challenge ${c.id} is never placed; add ::challenge{id=${c.id}}`);
  for (const s of sweeps) if (!placed.sweep.has(s.id)) problem(mdFile, '(body)', `sweep ${s.id} is never placed; add ::sweep{id=${s.id}}`);
  if (!quizPlaced && quiz.some((q) => !placed.question.has(q.id)))
    problem(mdFile, '(body)', 'some questions are never placed; add ::quiz (it shows every question not placed by ::question)');

  // The lab makes the lesson's title the page's h1, its steps h2 and each embed's title an h3: the body's headings and embeds must fit that outline.
  let depth = 1;
  for (const h of headings) {
    if (h.depth === 1) problem(mdFile, `line ${h.line}`, `"# ${h.title}" would be a second title beside the lesson's own; a step is "## ${h.title}"`);
    else if (h.depth > depth + 1)
      problem(
        mdFile,
        `line ${h.line}`,
        `"${'#'.repeat(h.depth)} ${h.title}" skips a level after ${depth === 1 ? "the lesson's title" : `a ${'#'.repeat(depth)} heading`}; use ${'#'.repeat(depth + 1)}`,
      );
    depth = h.depth;
  }
  const firstStep = headings.find((h) => h.depth === 2)?.line ?? Infinity;
  for (const d of directives)
    if (d.form === 'leaf' && (EMBEDS as readonly string[]).includes(d.name) && d.line < firstStep)
      problem(mdFile, `line ${d.line}`, `::${d.name} comes before the first step; put a "## " heading above it, so that its title sits in a step`);
  const steps = headings.filter((h) => h.depth === 2).map((h) => ({ id: stepAnchor(h.title), title: h.title }));
  unique(
    steps.map((s) => s.id),
    '(body) headings',
  );

  if (problems.length > 0) return { lesson: undefined, problems };
  const lesson: Lesson = {
    id: meta.id,
    number: Number(folderMatch![1]),
    folder,
    title: meta.title,
    summary: meta.summary,
    prerequisites: meta.prerequisites ?? [],
    claims: meta.claims,
    body: split.body,
    scenarios,
    shows: data.shows,
    stories,
    quiz,
    challenges,
    sweeps,
    textOnly,
    pending,
    steps,
  };
  return { lesson, problems };
}

function checkChallengeShape(
  c: Challenge,
  field: string,
  problem: (field: string, message: string) => void,
  scenarioRef: (field: string, id: string) => void,
  statements: (xs: readonly Expect[], field: string) => void,
): void {
  scenarioRef(`${field}.scenario`, c.scenario);
  statements(c.success, `${field}.success`);
  const paths = new Set<string>();
  let faultKnob: Challenge['knobs'][number] | undefined;
  c.knobs.forEach((k, i) => {
    const at = `${field}.knobs[${i}]`;
    if (k.kind === 'fault') {
      if (k.faults === undefined) problem(`${at}.faults`, 'a fault knob lists the faults the learner may add');
      if (faultKnob !== undefined) problem(`${at}.kind`, 'a challenge has at most one fault knob');
      faultKnob = k;
      return;
    }
    if (k.path === undefined) problem(`${at}.path`, `a ${k.kind} knob names the scenario path it sets`);
    else paths.add(k.path);
    if (k.kind === 'number' && (k.min === undefined || k.max === undefined || k.min >= k.max)) problem(`${at}.min`, 'a number knob needs min < max');
    if (k.kind === 'choice' && k.choices === undefined) problem(`${at}.choices`, 'a choice knob lists its choices');
  });
  for (const p of Object.keys(c.solution.set ?? {})) {
    if (!paths.has(p)) problem(`${field}.solution.set.${p}`, `is not a path any knob sets (${[...paths].join(', ') || 'none'})`);
  }
  const add = c.solution.addFault;
  if (add !== undefined) {
    const option = faultKnob?.faults?.[add.choice];
    if (option === undefined)
      problem(
        `${field}.solution.addFault.choice`,
        faultKnob === undefined ? 'the challenge has no fault knob' : `must be below ${faultKnob.faults?.length ?? 0}`,
      );
    else
      for (const f of Object.keys(add.fields ?? {}))
        if (!(option.edit ?? []).includes(f))
          problem(`${field}.solution.addFault.fields.${f}`, `is not a field the learner may edit (${(option.edit ?? []).join(', ') || 'none'})`);
  }
  if (c.type === 'cheapest' && c.maxChanges === undefined)
    problem(`${field}.maxChanges`, 'a cheapest-fix challenge says how many changes the cheapest fix takes');
}

/** Quiz questions, predictions, stops and challenges of a lesson, as `locklab lessons --json` lists them. */
export function countsOf(l: Pick<Lesson, 'quiz' | 'stories' | 'challenges'>): LessonCounts {
  return {
    questions: l.quiz.length,
    predictions: l.quiz.filter((q) => q.predict !== undefined).length,
    stories: l.stories.length,
    stops: l.stories.reduce((n, s) => n + s.stops.length, 0),
    challenges: l.challenges.length,
  };
}
