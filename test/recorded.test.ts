import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { check } from '../sim/check/checker.js';
import { findingOf } from '../sim/real/agreement.js';
import { lessonRecordingFile, lessonStories } from '../sim/real/lesson-stories.js';
import { checkRealScenario } from '../sim/real/runner.js';
import { REAL_STORIES, storyScenario } from '../sim/real/stories.js';
import { marksFileOf, recordingKey, type RecordedEntry } from '../sim/real/recording.js';
import { marksByProcess, stepAt, type StepMarks } from '../sim/clients/step-marks.js';
import { clientPhpLines } from '../sim/scenario/steps-php.js';
import { markProblems } from './support/step-lines.js';
import { runScenario } from '../sim/run.js';
import { validateTrace } from '../sim/trace/validate.js';

const dir = new URL('../recorded/', import.meta.url).pathname;
const all = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as RecordedEntry[];
const index = all.filter((e) => e.lesson === undefined);
const ofLessons = all.filter((e) => e.lesson !== undefined);
const stories = lessonStories();

describe('the traces recorded on real servers', () => {
  it('are one for each story and client that plays for real, and nothing else', () => {
    const wanted = REAL_STORIES.flatMap((s) => s.libraries.map((client) => `${s.scenario} ${(s.sets ?? []).join(',')} ${client}`)).sort();
    expect(index.map((e) => `${e.scenario} ${e.sets.join(',')} ${e.client}`).sort()).toEqual(wanted);
  });

  for (const e of index) {
    it(`${e.file} is a real trace of today's ${e.scenario}${e.sets.length === 0 ? '' : ` with ${e.sets.join(', ')}`}, and its verdict is what the checker finds in it now`, () => {
      const doc = validateTrace(JSON.parse(readFileSync(join(dir, e.file), 'utf8')), e.file);
      expect(doc.source).toBe('real');
      expect(doc.stop.reason).toBe('completed');
      // A model change that reshapes the scenario (a new field, a new default) means the story must be recorded again.
      expect(doc.scenario).toEqual(storyScenario(e.scenario, e.sets));
      expect(e.scenarioKey).toBe(recordingKey(doc.scenario));
      const now = check(doc.events);
      expect(now.outcome).toBe(e.outcome);
      expect(JSON.stringify(now)).toBe(JSON.stringify(doc.verdict));
    });
  }
});

describe("the traces recorded on real servers of the lessons' own stories", () => {
  it('are one for each story and client the lesson does not rule out, and nothing else', () => {
    const wanted = stories.flatMap((s) => s.libraries.map((client) => `${s.lesson} ${s.story} ${client} ${lessonRecordingFile(s, client)}`)).sort();
    expect(ofLessons.map((e) => `${e.lesson} ${e.story} ${e.client} ${e.file}`).sort()).toEqual(wanted);
    // Every lesson with a story the real runner can play ships at least one recording.
    expect(wanted.length).toBeGreaterThan(0);
  });

  it('leave out only stories that say why: every story plays on the real runner with each client it names, and one the runner refuses Symfony says why not', () => {
    for (const s of stories) {
      if (s.source.notReal !== undefined) continue;
      for (const client of s.libraries) expect(() => checkRealScenario(s.scenario, client), `${s.folder}/${s.story} with ${client}`).not.toThrow();
      let refused = false;
      try {
        checkRealScenario(s.scenario, 'symfony');
      } catch {
        refused = true;
      }
      if (refused) expect(s.source.notOnSymfony, `${s.folder}/${s.story}: the runner refuses Symfony Lock, so the story must say why`).toBeDefined();
    }
  });

  for (const e of ofLessons) {
    const s = stories.find((x) => x.lesson === e.lesson && x.story === e.story);
    it(`${e.file} is a real trace of today's story ${e.story} in lesson ${e.lesson}, judged as recorded, ending as the simulation does`, () => {
      expect(s, `lesson ${e.lesson} has no story ${e.story}`).toBeDefined();
      const doc = validateTrace(JSON.parse(readFileSync(join(dir, e.file), 'utf8')), e.file);
      expect(doc.source).toBe('real');
      expect(doc.stop.reason).toBe('completed');
      expect(doc.scenario).toEqual(s!.scenario);
      expect(e.scenarioKey).toBe(recordingKey(doc.scenario));
      const now = check(doc.events);
      expect(now.outcome).toBe(e.outcome);
      expect(JSON.stringify(now)).toBe(JSON.stringify(doc.verdict));
      // What the learner sees beside the story: the same outcome, and the same clients both believing they held the lock.
      const simulated = check(runScenario(s!.scenario, s!.seed).events);
      expect(findingOf(now)).toEqual(findingOf(simulated));
      // A racy story says in how many of at least ten real runs it ended so; any other ended so in every run.
      if (s!.source.racy === undefined) expect(e.realRuns).toBeUndefined();
      else {
        expect(e.realRuns!.of).toBeGreaterThanOrEqual(10);
        expect(e.realRuns!.ended).toBeGreaterThanOrEqual(1);
        expect(e.realRuns!.ended).toBeLessThanOrEqual(e.realRuns!.of);
      }
      expect(e.recordedOn).toMatch(e.client === 'symfony' ? /^recorded on .+ with Symfony Lock 5\.4/ : /^recorded on .+ with Locklab's own lock code$/);
    });
  }
});

describe('what the README and docs/real-servers.md say of the recordings', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
  const notes = readFileSync(new URL('../docs/real-servers.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
  const race = ofLessons.find((e) => e.lesson === 'atomic-acquire' && e.story === 'race' && e.client === 'node')!;

  /** The numbers a sentence of the text quotes where `pattern` finds it. */
  const quoted = (text: string, pattern: RegExp): number[] | undefined => pattern.exec(text)?.slice(1).map(Number);

  it('counts the recordings the index lists', () => {
    expect(quoted(readme, /\((\d+) traces, listed in `recorded\/index\.json`\)/)).toEqual([index.length]);
    expect(quoted(readme, /(\d+) traces of (\d+) stories/)).toEqual([ofLessons.length, new Set(ofLessons.map((e) => `${e.lesson}/${e.story}`)).size]);
  });

  it("quote how many of lesson 2's racy real runs ended as the story does, as the index (and so the lab) has it", () => {
    expect(race.realRuns).toBeDefined();
    const { ended, of } = race.realRuns!;
    expect(quoted(readme, /lesson 2's exists-then-set race: (\d+) of (\d+)/)).toEqual([ended, of]);
    expect(quoted(notes, /the recorder played it (\d+) times, (\d+) ended as the story does/)).toEqual([of, ended]);
    expect(quoted(notes, /the lab says "(\d+) of (\d+) runs"/)).toEqual([ended, of]);
  });
});

describe('the step marks kept beside each recording', () => {
  it('are named in the index beside every recording, and recorded/ holds nothing but the index, the recordings and their marks', () => {
    for (const e of all) expect(e.marks, e.file).toBe(marksFileOf(e.file));
    const listed = new Set(['index.json', ...all.flatMap((e) => [e.file, e.marks!])]);
    expect(readdirSync(dir).filter((f) => !listed.has(f))).toEqual([]);
  });

  for (const e of all.filter((x) => x.marks !== undefined)) {
    it(`${e.marks}: each event of the recording happens on a line of its client's code that makes it`, () => {
      const doc = validateTrace(JSON.parse(readFileSync(join(dir, e.file), 'utf8')), e.file);
      const marks = JSON.parse(readFileSync(join(dir, e.marks!), 'utf8')) as StepMarks;
      expect(markProblems(doc.scenario, doc, marks)).toEqual([]);
      // Every process that made an event says where it was.
      const actors = new Set(doc.events.filter((x) => x.kind === 'client.start').map((x) => x.actor));
      expect(new Set(marks.processes)).toEqual(actors);
    });
  }

  it("lesson 4's GC pause on real servers, as the code panel shows it: A frozen on work(3) while its lease expires and B takes the lock", () => {
    for (const e of ofLessons.filter((x) => x.lesson === 'pause-past-expiry' && x.story === 'gc-pause')) {
      const doc = validateTrace(JSON.parse(readFileSync(join(dir, e.file), 'utf8')), e.file);
      const a = marksByProcess(JSON.parse(readFileSync(join(dir, e.marks!), 'utf8')) as StepMarks).get('A')!;
      const php = clientPhpLines(
        doc.scenario,
        doc.scenario.clients.find((c) => c.name === 'A')!,
      );
      const lineAt = (seq: number) => php.lines[php.lineOf(stepAt(a, seq)!)!]!.text.trim();
      const seqOf = (kind: string, actor: string) => doc.events.find((x) => x.kind === kind && x.actor === actor)!.seq;
      expect([lineAt(seqOf('process.pause', 'A')), lineAt(seqOf('lock.expired', 'redis')), lineAt(seqOf('acquire.ok', 'B'))], e.file).toEqual([
        'work(3);',
        'work(3);',
        'work(3);',
      ]);
      expect(lineAt(seqOf('write.request', 'A')), e.file).toBe('write();');
    }
  });
});

describe('Symfony Lock on the real runner', () => {
  const byId = (folder: string, story: string) => stories.find((s) => s.folder === folder && s.story === story)!.scenario;

  it('refuses the exists-then-set mistake, which its atomic acquire cannot make, naming the field', () => {
    expect(() => checkRealScenario(byId('02-atomic-acquire', 'race'), 'symfony')).toThrow(
      /^clients\[0\]\.acquire\.method: Symfony Lock takes the key in one atomic step/,
    );
  });

  it('refuses a plain DEL release, which its token-checked release cannot make, naming the field', () => {
    expect(() => checkRealScenario(byId('06-releasing-safely', 'plain-del'), 'symfony')).toThrow(
      /^clients\[0\]\.release\.method: Symfony Lock releases only with its own token/,
    );
  });
});
