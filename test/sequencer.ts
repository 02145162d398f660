import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/*
 * The order test files start in. Vitest starts the files it has timed before
 * longest first, but a fresh clone (CI) has no timings, so it starts the
 * largest files first, and a long file that happens to be small started last
 * on one worker while the other worker sat idle: the README's file (about
 * 125 s, its sweeps) started 104 s into the node files and ended them at
 * 229 s; the real servers' agreement file (about 150 s, mostly waiting on
 * real time) started 60 s into its phase. These files start first in their
 * project, longest first; every other file keeps Vitest's order after them.
 * test/sequencer.test.ts checks that each one named here exists.
 */
export const LONGEST_FIRST: readonly string[] = [
  'test/readme.test.ts',
  'test/fuzz.test.ts',
  'test/sweep-cli.test.ts',
  'test/real/agreement.test.ts',
  'test/real/user-servers.test.ts',
  'test/real/cli.test.ts',
  'test/real/readme.test.ts',
];

/** Where `LONGEST_FIRST` puts a file: its place in the list, or after all of them. */
export function startRank(root: string, moduleId: string): number {
  const at = LONGEST_FIRST.indexOf(relative(root, moduleId).split('\\').join('/'));
  return at < 0 ? LONGEST_FIRST.length : at;
}

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    // Vitest's order keeps each project's files together, in the order the projects run: keep that, reorder within.
    const projectAt = new Map<string, number>();
    sorted.forEach((s, i) => {
      if (!projectAt.has(s.project.name)) projectAt.set(s.project.name, i);
    });
    return sorted
      .map((spec, i) => ({ spec, i, project: projectAt.get(spec.project.name)!, rank: startRank(root, spec.moduleId) }))
      .sort((a, b) => a.project - b.project || a.rank - b.rank || a.i - b.i)
      .map((x) => x.spec);
  }
}
