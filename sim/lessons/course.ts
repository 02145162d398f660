import { parseDocument } from 'yaml';
import { compileSchema } from '../scenario/schema-check.js';
import { LESSON_DATA, LESSON_MD } from './parse.js';
import type { Lesson, LessonProblem } from './types.js';

/** One claim of the source material the course must teach (lessons/claims.yaml). */
export interface Claim {
  readonly id: string;
  readonly claim: string;
  readonly source: 'lesson' | 'symfony-docs';
  /** The source says more than is true; a lesson must state the precise version. */
  readonly overstated: boolean;
}

export const CLAIMS_FILE = 'claims.yaml';

/** At most this many claims may be taught in text alone: the rest must be shown by a run or wait, named, for a feature. */
export const MAX_TEXT_ONLY = 6;

const claimsSchema = {
  type: 'array',
  minItems: 1,
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'claim', 'source'],
    properties: {
      id: { type: 'string', pattern: '^C[0-9]{1,3}$' },
      claim: { type: 'string', minLength: 1 },
      source: { enum: ['lesson', 'symfony-docs'] },
      overstated: { type: 'boolean' },
    },
  },
};

export function parseClaims(text: string): { claims: Claim[]; problems: LessonProblem[] } {
  const doc = parseDocument(text);
  if (doc.errors.length > 0)
    return {
      claims: [],
      problems: doc.errors.map((e) => ({
        file: CLAIMS_FILE,
        field: `line ${e.linePos?.[0]?.line ?? 0}`,
        message: `is not valid YAML: ${e.message.split('\n')[0]}`,
      })),
    };
  const data = doc.toJS() as unknown;
  const issues = compileSchema(claimsSchema)(data);
  if (issues.length > 0) return { claims: [], problems: issues.map((i) => ({ file: CLAIMS_FILE, field: i.path || '(top level)', message: i.message })) };
  const claims = (data as Array<Omit<Claim, 'overstated'> & { overstated?: boolean }>).map((c) => ({ ...c, overstated: c.overstated === true }));
  const problems: LessonProblem[] = [];
  const seen = new Set<string>();
  claims.forEach((c, i) => {
    if (seen.has(c.id)) problems.push({ file: CLAIMS_FILE, field: `[${i}].id`, message: `repeats ${c.id}` });
    seen.add(c.id);
  });
  return { claims, problems };
}

/** How a claim is covered across the course. */
export interface ClaimCoverage {
  readonly claim: Claim;
  /** Lessons whose runs show it, with the sentence each run says. */
  readonly shownBy: readonly { lesson: string; says: string }[];
  readonly textOnly: readonly { lesson: string; reason: string }[];
  readonly pending: readonly { lesson: string; needs: string; part: 'all' | 'part' }[];
}

export function coverageOf(lessons: readonly Lesson[], claims: readonly Claim[]): ClaimCoverage[] {
  return claims.map((claim) => ({
    claim,
    shownBy: lessons.flatMap((l) => l.shows.filter((s) => s.claims.includes(claim.id)).map((s) => ({ lesson: l.id, says: s.says }))),
    textOnly: lessons.flatMap((l) => l.textOnly.filter((t) => t.claim === claim.id).map((t) => ({ lesson: l.id, reason: t.reason }))),
    pending: lessons.flatMap((l) => l.pending.filter((p) => p.claim === claim.id).map((p) => ({ lesson: l.id, needs: p.needs, part: p.part }))),
  }));
}

/**
 * The rules over the whole course: unique ids and numbers, prerequisites
 * that exist and come earlier, and every claim covered — shown by a run,
 * taught in text (at most MAX_TEXT_ONLY, each with its reason), or pending
 * with the feature it waits for. A claim the source overstates must be
 * shown with the precise version it proves.
 */
export function checkCourse(lessons: readonly Lesson[], claims: readonly Claim[]): LessonProblem[] {
  const problems: LessonProblem[] = [];
  const byId = new Map<string, Lesson>();
  const numbers = new Map<number, string>();
  for (const l of lessons) {
    const file = `${l.folder}/${LESSON_MD}`;
    if (byId.has(l.id)) problems.push({ file, field: 'front matter.id', message: `repeats the id of ${byId.get(l.id)!.folder}` });
    byId.set(l.id, l);
    if (numbers.has(l.number)) problems.push({ file, field: 'folder name', message: `repeats lesson number ${l.number} of ${numbers.get(l.number)}` });
    numbers.set(l.number, l.folder);
  }
  for (const l of lessons) {
    l.prerequisites.forEach((p, i) => {
      const other = byId.get(p);
      const field = `front matter.prerequisites[${i}]`;
      if (other === undefined) problems.push({ file: `${l.folder}/${LESSON_MD}`, field, message: `names ${p}, which is no lesson's id` });
      else if (other.number >= l.number) problems.push({ file: `${l.folder}/${LESSON_MD}`, field, message: `names ${p}, which comes at or after this lesson` });
    });
  }
  const coverage = coverageOf(lessons, claims);
  let textOnly = 0;
  for (const c of coverage) {
    const id = c.claim.id;
    if (c.shownBy.length === 0 && c.textOnly.length === 0 && c.pending.length === 0) {
      problems.push({ file: CLAIMS_FILE, field: id, message: 'no lesson shows it, teaches it in text, or marks it pending' });
    }
    if (c.shownBy.length === 0 && c.textOnly.length > 0 && c.pending.length === 0) textOnly++;
    if (c.claim.overstated && c.textOnly.length === 0) {
      const precise = lessons.some((l) => l.shows.some((s) => s.claims.includes(id) && s.precisely !== undefined));
      if (!precise)
        problems.push({ file: CLAIMS_FILE, field: id, message: 'is overstated by the source; a lesson must show it with precisely: the precise version' });
    }
  }
  if (textOnly > MAX_TEXT_ONLY) {
    const ids = coverage.filter((c) => c.shownBy.length === 0 && c.textOnly.length > 0 && c.pending.length === 0).map((c) => c.claim.id);
    problems.push({
      file: LESSON_DATA,
      field: 'textOnly',
      message: `${textOnly} claims are taught in text alone (${ids.join(', ')}); at most ${MAX_TEXT_ONLY} may be`,
    });
  }
  return problems;
}
