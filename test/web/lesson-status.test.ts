import { describe, expect, it } from 'vitest';
import { loadLessons } from '../../sim/cli/lessons.js';
import { storyAskKey } from '../../sim/lessons/option-order.js';
import { summaryOf } from '../../web/lessons/plugin.js';
import { guessesText, statusLine, statusOf, stopsText } from '../../web/lessons/status.js';

/* A lesson's status counts the questions its stories ask before a stop, apart from its quiz. */

describe("a lesson's status", () => {
  const lesson = loadLessons(undefined, false).lessons.find((l) => l.id === 'pause-past-expiry')!;
  const summary = summaryOf(lesson);

  it('lists each story question with its right options, by its progress key', () => {
    expect(summary.asks).toEqual({ [storyAskKey('gc-pause', 'a-pauses')]: [0], [storyAskKey('gc-pause', 'a-wakes')]: [0] });
  });

  it('counts the story questions answered and those answered right, and says nothing before the first', () => {
    const none = statusOf(summary, { answers: {}, stops: {}, solved: {} });
    expect([none.guessed, none.guessedRight, guessesText(none)]).toEqual([0, 0, '']);
    const one = statusOf(summary, { answers: { [lesson.id]: { [storyAskKey('gc-pause', 'a-pauses')]: [0] } }, stops: {}, solved: {} });
    expect(guessesText(one)).toBe(' (1 of 1 guess right)');
    const two = statusOf(summary, {
      answers: { [lesson.id]: { [storyAskKey('gc-pause', 'a-pauses')]: [0], [storyAskKey('gc-pause', 'a-wakes')]: [2] } },
      stops: {},
      solved: {},
    });
    expect(guessesText(two)).toBe(' (1 of 2 guesses right)');
    // A story's answers are no quiz answers, but the lesson is started.
    expect([two.answered, two.started]).toEqual([0, true]);
  });

  it('joins the parts of a status line with dots held to the part before them, leaving out the false ones', () => {
    expect(statusLine(['in progress', '2/5 questions answered', false, '0/1 challenges solved'])).toBe(
      'in progress\u00a0· 2/5 questions answered\u00a0· 0/1 challenges solved',
    );
    expect(statusLine([false, 'only'])).toBe('only');
  });
});

describe("a story's size before it is played", () => {
  it('says how many of its stops ask first, in agreement with the number', () => {
    expect(stopsText([{}, { ask: {} }, {}, {}])).toBe('4 stops; 1 of them asks you first.');
    expect(stopsText([{ ask: {} }, { ask: {} }, {}])).toBe('3 stops; 2 of them ask you first.');
    expect(stopsText([{}, {}])).toBe('2 stops; no stop asks you first.');
  });
});
