import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { check } from '../sim/check/checker.js';
import { REAL_STORIES, storyScenario } from '../sim/real/stories.js';
import type { RecordedEntry } from '../sim/real/record.js';
import { validateTrace } from '../sim/trace/io.js';

const dir = new URL('../recorded/', import.meta.url).pathname;
const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as RecordedEntry[];

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
      const now = check(doc.events);
      expect(now.outcome).toBe(e.outcome);
      expect(JSON.stringify(now)).toBe(JSON.stringify(doc.verdict));
    });
  }
});
