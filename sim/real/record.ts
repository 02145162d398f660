// `npm run record-real`: plays every story that has a real counterpart on
// real servers — the built-in stories and the lessons' own stories — with
// Locklab's own clients and with Symfony Lock where it has the store, and
// writes the traces the lab opens beside the simulation (Compare, and each
// lesson's story): recorded/<name>.json, beside it recorded/<name>.marks.json
// (which line of its code each process was on, event by event), and
// recorded/index.json.
//
//   npm run record-real                      everything
//   npm run record-real -- --lessons         the lessons' stories only
//   npm run record-real -- memcached-restart 04-pause-past-expiry/gc-pause 10-sessions
//   npm run record-real -- --runs 3          play each three times (default 2)
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { check } from '../check/checker.js';
import { runScenario } from '../run.js';
import type { Scenario } from '../scenario/types.js';
import { serializeTrace } from '../trace/io.js';
import type { TraceDocument } from '../trace/types.js';
import { findingOf, type Finding } from './agreement.js';
import type { ClientLibrary } from './ipc.js';
import { lessonRecordingFile, lessonStories } from './lesson-stories.js';
import { serverNeeds } from './nodes.js';
import { PACKAGE_ROOT } from './paths.js';
import { runReal } from './runner.js';
import { REAL_STORIES, storyScenario } from './stories.js';
import { serverVersion, symfonyVersion } from './versions.js';
import { marksFileOf, recordingKey, type RecordedEntry } from './recording.js';
import { StepMarker, type StepMarks } from '../clients/step-marks.js';

export type { RecordedEntry };

const out = join(PACKAGE_ROOT, 'recorded');
/** Where a lesson story's real runs that told another ending than the simulation are kept, to look at. */
const disagreements = join(PACKAGE_ROOT, 'test-results', 'recorded-disagreements');

interface Job {
  /** What a name on the command line matches: the built-in's name, or the lesson folder and `folder/story`. */
  readonly names: readonly string[];
  readonly scenario: Scenario;
  readonly seed: number;
  readonly sets: readonly string[];
  readonly library: ClientLibrary;
  readonly file: string;
  /** A lesson's story must end as the simulation tells it, in every run; a built-in's recording shows whatever the real thing did. */
  readonly lesson?: { readonly lesson: string; readonly story: string; readonly racy: boolean };
}

function builtinJobs(): Job[] {
  return REAL_STORIES.flatMap((s) =>
    s.libraries.map((library) => {
      const sets = s.sets ?? [];
      const scenario = storyScenario(s.scenario, sets);
      return {
        names: [s.scenario],
        scenario,
        seed: scenario.seed,
        sets,
        library,
        file: `${s.scenario}${sets.length === 0 ? '' : `--${sets.join('--').replace(/[^\w.=-]/g, '_')}`}-${library}.json`,
      };
    }),
  );
}

function lessonJobs(): Job[] {
  return lessonStories().flatMap((s) =>
    s.libraries.map((library) => ({
      names: [s.folder, `${s.folder}/${s.story}`],
      scenario: s.scenario,
      seed: s.seed,
      sets: [],
      library,
      file: lessonRecordingFile(s, library),
      lesson: { lesson: s.lesson, story: s.story, racy: s.source.racy !== undefined },
    })),
  );
}

const same = (a: Finding, b: Finding): boolean => JSON.stringify(a) === JSON.stringify(b);
const describeFinding = (f: Finding): string => `${f.outcome}, ${f.doubleOwnership.length === 0 ? 'nobody' : f.doubleOwnership.join(' and ')} double-owning`;

/** How many times a racy story is played at least: enough runs for the lab's "so many of so many" to mean something. */
const RACY_RUNS = 10;

interface Recorded {
  readonly doc: TraceDocument;
  /** Which step each client process ran, event by event, in that run: the lab marks the line of code each is on. */
  readonly marks: StepMarks;
  readonly realRuns?: RecordedEntry['realRuns'];
}

/**
 * Plays a job `runs` times; a lesson's story is kept only when every run has
 * the simulation's finding. A racy story is played at least RACY_RUNS times
 * and kept when at least one run has it, with the count: a race is lost or
 * won by timing, and the lab says how often it went the story's way.
 */
async function record(job: Job, runs: number): Promise<Recorded | null> {
  const simulated = job.lesson === undefined ? null : findingOf(check(runScenario(job.scenario, job.seed).events));
  const racy = job.lesson?.racy === true;
  const of = racy ? Math.max(runs, RACY_RUNS) : runs;
  let kept: { doc: TraceDocument; marks: StepMarks } | null = null;
  let ended = 0;
  for (let i = 1; i <= of; i++) {
    const marker = new StepMarker();
    const doc = await runReal(job.scenario, { library: job.library, marks: marker });
    const real = findingOf(doc.verdict);
    if (doc.stop.reason !== 'completed' || (simulated !== null && !same(real, simulated))) {
      mkdirSync(disagreements, { recursive: true });
      const at = join(disagreements, job.file.replace(/\.json$/, `-run${i}.json`));
      writeFileSync(at, serializeTrace(doc));
      const why =
        doc.stop.reason !== 'completed' ? `the run stopped: ${doc.stop.reason}` : `real ${describeFinding(real)}; simulated ${describeFinding(simulated!)}`;
      // A race lost is part of a racy story's count; a run that did not finish ends any recording.
      if (racy && doc.stop.reason === 'completed') {
        process.stderr.write(`${job.file}: run ${i} of ${of}: another ending: ${why} (trace in ${at})\n`);
        continue;
      }
      process.stderr.write(`NOT recorded ${job.file}: run ${i} of ${of}: ${why} (trace in ${at})\n`);
      return null;
    }
    process.stderr.write(`${job.file}: run ${i} of ${of}: ${describeFinding(real)}\n`);
    ended++;
    kept = { doc, marks: marker.marks };
  }
  if (kept === null) {
    process.stderr.write(`NOT recorded ${job.file}: none of ${of} runs ended as the story does\n`);
    return null;
  }
  return racy ? { ...kept, realRuns: { ended, of } } : kept;
}

function readArgs() {
  return parseArgs({
    allowPositionals: true,
    options: { lessons: { type: 'boolean', default: false }, runs: { type: 'string', default: '2' } },
  });
}

async function main(): Promise<number> {
  let args: ReturnType<typeof readArgs>;
  try {
    args = readArgs();
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    return 2;
  }
  const { values, positionals: only } = args;
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) {
    process.stderr.write(`--runs: expected a whole number of runs, 1 or more, not ${values.runs}\n`);
    return 2;
  }
  const all = [...(values.lessons ? [] : builtinJobs()), ...lessonJobs()];
  const jobs = all.filter((j) => only.length === 0 || j.names.some((n) => only.includes(n)));
  const unknown = only.filter((n) => !all.some((j) => j.names.includes(n)));
  if (unknown.length > 0) {
    process.stderr.write(`no story to record is called ${unknown.join(', ')} (a built-in scenario, a lesson folder, or folder/story)\n`);
    return 2;
  }
  mkdirSync(out, { recursive: true });
  const indexFile = join(out, 'index.json');
  // The index keeps every entry not recorded again now, and the old entry of one whose new runs disagreed.
  const redone = new Set(jobs.map((j) => j.file));
  const before = existsSync(indexFile) ? (JSON.parse(readFileSync(indexFile, 'utf8')) as RecordedEntry[]) : [];
  const entries = before.filter((e) => !redone.has(e.file));
  const previous = new Map(before.map((e) => [e.file, e]));
  // Asked once, before any run: asking a program its version blocks this process, and runs are timing-sensitive.
  const versions = new Map((['redis', 'memcached', 'postgres', 'zookeeper', 'etcd'] as const).map((k) => [k, serverVersion(k)]));
  const symfony = symfonyVersion();
  let failed = 0;
  // Two at a time: each run is timing-sensitive, and the machine has two cores.
  for (let i = 0; i < jobs.length; i += 2) {
    await Promise.all(
      jobs.slice(i, i + 2).map(async (j) => {
        const recorded = await record(j, runs);
        if (recorded === null) {
          failed++;
          const old = previous.get(j.file);
          if (old !== undefined) entries.push(old);
          return;
        }
        const { doc, marks, realRuns } = recorded;
        writeFileSync(join(out, j.file), serializeTrace(doc));
        const marksFile = marksFileOf(j.file);
        writeFileSync(join(out, marksFile), `${JSON.stringify(marks)}\n`);
        const servers = [...new Set(serverNeeds(j.scenario).map((n) => versions.get(n.server)!))].join(', ');
        entries.push({
          scenario: j.scenario.name,
          sets: j.sets,
          scenarioKey: recordingKey(doc.scenario),
          client: j.library,
          file: j.file,
          recordedOn: `recorded on ${servers} with ${j.library === 'symfony' ? symfony : "Locklab's own lock code"}`,
          outcome: doc.verdict.outcome,
          recordedAt: new Date().toISOString().slice(0, 10),
          marks: marksFile,
          ...(realRuns === undefined ? {} : { realRuns }),
          ...(j.lesson === undefined ? {} : { lesson: j.lesson.lesson, story: j.lesson.story }),
        });
        process.stderr.write(`recorded ${j.file}: ${doc.verdict.outcome}\n`);
      }),
    );
  }
  entries.sort((a, b) => a.file.localeCompare(b.file));
  writeFileSync(indexFile, `${JSON.stringify(entries, null, 2)}\n`);
  if (failed > 0) process.stderr.write(`${failed} of ${jobs.length} not recorded: their real runs did not end as the simulation does\n`);
  return failed > 0 ? 1 : 0;
}

process.exitCode = await main();
