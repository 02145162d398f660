import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { coverageOf, countsOf, MAX_TEXT_ONLY } from '../../sim/lessons/index.js';
import { readCourse } from '../../sim/cli/lessons.js';
import { LESSONS_DIR } from '../../sim/cli/lessons.js';
import { checkLesson, judge, loadCourse, scenarioOf } from '../../sim/lessons/index.js';

/*
 * The shipped course: every lesson replays and every statement it makes
 * about its runs holds; together they cover every claim of the source
 * material, as CLAIMS.md lists it.
 */

const { files } = readCourse(LESSONS_DIR);
const parsed = loadCourse(files, { replay: false });

/** The course the issue asks for: titles in this order, each with its claim ids. */
const PLAN: ReadonlyArray<[string, string[]]> = [
  ['one-machine', ['C1', 'C2', 'C3', 'C4', 'C5', 'C33', 'C34', 'C35', 'C36', 'C37', 'C38']],
  ['atomic-acquire', ['C6', 'C7', 'C11', 'C30']],
  ['leases', ['C8', 'C9', 'C10', 'C12', 'C13', 'C14', 'C26']],
  ['pause-past-expiry', ['C15', 'C16', 'C17', 'C18', 'C69']],
  ['fencing-tokens', ['C19', 'C20', 'C23', 'C29']],
  ['releasing-safely', ['C27', 'C28', 'C31', 'C32', 'C67']],
  ['long-work', ['C70', 'C71']],
  ['when-the-store-forgets', ['C40', 'C41', 'C42', 'C56', 'C57']],
  ['clocks-and-databases', ['C43', 'C44', 'C45', 'C46', 'C47', 'C48', 'C49', 'C50', 'C72']],
  ['sessions', ['C24', 'C25', 'C51', 'C52', 'C53', 'C54', 'C55', 'C63', 'C64', 'C65', 'C66']],
  ['many-stores', ['C22', 'C58', 'C59', 'C60', 'C61', 'C62']],
  ['deploys-and-configuration', ['C21', 'C39', 'C68', 'C73']],
];

describe('the shipped lessons', () => {
  it('parse without a problem', () => {
    expect(parsed.problems).toEqual([]);
    expect(parsed.lessons.map((l) => l.id)).toEqual(PLAN.map(([id]) => id));
  });

  for (const lesson of parsed.lessons) {
    it(`lesson ${lesson.number} (${lesson.id}) replays every run and every statement, stop, prediction and challenge holds`, () => {
      expect(checkLesson(lesson)).toEqual([]);
    });
  }

  it('are the twelve of the plan, in order, each covering its claims', () => {
    for (const [i, [id, claims]] of PLAN.entries()) {
      const l = parsed.lessons[i]!;
      expect(l.number).toBe(i + 1);
      expect(l.id).toBe(id);
      expect([...l.claims].sort()).toEqual([...claims].sort());
    }
  });

  it('ask at least four questions each, one of them a prediction, 48 or more in all', () => {
    for (const l of parsed.lessons) {
      const n = countsOf(l);
      expect(n.questions, l.id).toBeGreaterThanOrEqual(4);
      expect(n.predictions, l.id).toBeGreaterThanOrEqual(1);
    }
    expect(parsed.lessons.reduce((n, l) => n + l.quiz.length, 0)).toBeGreaterThanOrEqual(48);
  });

  it('explain every option of every question and stop', () => {
    for (const l of parsed.lessons) {
      const options = [...l.quiz.flatMap((q) => q.options), ...l.stories.flatMap((s) => s.stops.flatMap((t) => t.ask?.options ?? []))];
      for (const o of options) expect(o.why.length, `${l.id}: ${o.text}`).toBeGreaterThan(10);
    }
  });

  it('offer at least ten challenges, of all three kinds, each with hints', () => {
    const all = parsed.lessons.flatMap((l) => l.challenges);
    expect(all.length).toBeGreaterThanOrEqual(10);
    expect(new Set(all.map((c) => c.type))).toEqual(new Set(['break', 'fix', 'cheapest']));
    for (const c of all) expect(c.hints.length).toBeGreaterThan(0);
  });

  it("say in lesson 3's challenge when A's lease runs out, as its run shows: 2 s into a 5 s job, not halfway", () => {
    const lesson = parsed.lessons.find((l) => l.id === 'leases')!;
    const c = lesson.challenges.find((x) => x.id === 'slow-but-healthy')!;
    const { doc } = judge(scenarioOf(lesson.scenarios[c.scenario]!, { scenario: c.scenario }), lesson.scenarios[c.scenario]!.seed);
    const began = doc.events.find((e) => e.kind === 'acquire.ok' && e.actor === 'A')!.timeUs;
    const expired = doc.events.find((e) => e.kind === 'lock.expired' && e.owner?.startsWith('A:'))!.timeUs;
    const jobMs = scenarioOf(lesson.scenarios[c.scenario]!, { scenario: c.scenario }).clients.find((x) => x.name === 'A')!.workMs;
    const inS = Math.round((expired - began) / 1e6);
    const leftS = Math.round(jobMs / 1000 - (expired - began) / 1e6);
    expect([inS, leftS]).toEqual([2, 3]);
    expect(c.goal).toContain(`A's job takes ${jobMs / 1000} s; its 2 s lease runs out ${inS} s in, with ${leftS} s of the job still to go.`);
    expect(c.goal).not.toMatch(/half/);
  });

  it("give lesson 4's first story a last stop that flips fencing on and shows the rejection", () => {
    const story = parsed.lessons[3]!.stories[0]!;
    const last = story.stops[story.stops.length - 1]!;
    expect(last.set).toEqual({ 'resource.fencing': true });
    expect(last.at.kind).toBe('write.rejected');
    expect(last.text).toContain('{fence} < {data.highestFence}');
  });
});

describe('claim coverage', () => {
  const shared = readFileSync(new URL('../../../shared/CLAIMS.md', import.meta.url), 'utf8');
  const sharedIds = [...shared.matchAll(/^\| (C\d+) \|/gm)].map((m) => m[1]!);

  it('lists exactly the claims of CLAIMS.md in lessons/claims.yaml', () => {
    expect(sharedIds.length).toBe(73);
    expect(parsed.claims.map((c) => c.id)).toEqual(sharedIds);
  });

  it('marks as overstated exactly the claims CLAIMS.md says the source overstates', () => {
    const overstated = [...shared.matchAll(/^\| (C\d+) \|.*\| source overstates \|/gm)].map((m) => m[1]!);
    expect(parsed.claims.filter((c) => c.overstated).map((c) => c.id)).toEqual(overstated);
  });

  it('shows, teaches in text (six at most, each with its reason) or marks pending every claim', () => {
    const coverage = coverageOf(parsed.lessons, parsed.claims);
    const uncovered = coverage.filter((c) => c.shownBy.length === 0 && c.textOnly.length === 0 && c.pending.length === 0);
    expect(uncovered.map((c) => c.claim.id)).toEqual([]);
    const textOnly = coverage.filter((c) => c.shownBy.length === 0 && c.pending.length === 0);
    expect(textOnly.length).toBeLessThanOrEqual(MAX_TEXT_ONLY);
    for (const c of textOnly) expect(c.textOnly[0]!.reason.length).toBeGreaterThan(20);
    for (const c of coverage) for (const p of c.pending) expect(p.needs.length).toBeGreaterThan(20);
  });

  it('shows every claim by a run but the five the simulation cannot show, with nothing pending', () => {
    const coverage = coverageOf(parsed.lessons, parsed.claims);
    expect(coverage.filter((c) => c.pending.length > 0).map((c) => c.claim.id)).toEqual([]);
    expect(coverage.filter((c) => c.shownBy.length === 0).map((c) => c.claim.id)).toEqual(['C43', 'C46', 'C47', 'C49', 'C62']);
    expect(coverage.filter((c) => c.shownBy.length > 0)).toHaveLength(68);
  });

  it('shows by a run each claim that waited for the steps and faults of Symfony Lock’s API', () => {
    const coverage = coverageOf(parsed.lessons, parsed.claims);
    const byId = new Map(coverage.map((c) => [c.claim.id, c]));
    for (const id of ['C31', 'C32', 'C39', 'C42', 'C44', 'C45', 'C61', 'C65', 'C66', 'C68', 'C70', 'C71'])
      expect(byId.get(id)?.shownBy.length, id).toBeGreaterThan(0);
  });
});
