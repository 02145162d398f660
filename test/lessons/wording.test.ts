import { describe, expect, it } from 'vitest';
import { LESSONS_DIR, readCourse } from '../../sim/cli/lessons.js';

/*
 * Slips an edit leaves in the lessons' words, which no run can catch: a word
 * typed twice ("the the"), often across a line break where it is hard to
 * see, or an article left before a possessive ("changing the its code").
 * Lower case only: a client named A is "giving A a lease".
 */

const { files } = readCourse(LESSONS_DIR);

function slipsIn(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/\b([a-z]+)[ \t]*\n?[ \t]*\1\b/g)) found.push(m[0].replace(/\s+/g, ' '));
  for (const m of text.matchAll(/\b(?:the|a|an)\s+(?:its|their|his|her|our|your|the|a|an)\b/g)) found.push(m[0].replace(/\s+/g, ' '));
  return found;
}

describe("the lessons' words", () => {
  it('finds a doubled word and an article before a possessive, across a line break too', () => {
    expect(slipsIn('which means changing the\nits code')).toEqual(['the its']);
    expect(slipsIn('the lock is is held')).toEqual(['is is']);
    expect(slipsIn('giving A a lease; sends A an error')).toEqual([]);
  });

  it('have no word typed twice and no article before a possessive', () => {
    const slips = Object.entries(files.lessons).flatMap(([folder, own]) =>
      Object.entries(own)
        .filter(([name]) => /^lesson\.(md|yaml)$/.test(name))
        .flatMap(([name, text]) => slipsIn(text).map((s) => `${folder}/${name}: "${s}"`)),
    );
    expect(Object.keys(files.lessons).length).toBeGreaterThanOrEqual(12);
    expect(slips).toEqual([]);
  });
});
