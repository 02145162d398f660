import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { loadLessons, LESSONS_DIR } from '../../sim/cli/lessons.js';
import { optionOrder, storyAskKey } from '../../sim/lessons/option-order.js';
import type { Option } from '../../sim/lessons/types.js';
import { Choices } from '../../web/lessons/Choices.js';

const course = loadLessons(LESSONS_DIR, false);

/** Every question of the course with the key its options are ordered by: the quiz's and the stories'. */
const questions = course.lessons.flatMap((l) => [
  ...l.quiz.map((q) => ({ lesson: l.id, key: q.id, options: q.options })),
  ...l.stories.flatMap((s) =>
    s.stops.flatMap((stop) => (stop.ask === undefined ? [] : [{ lesson: l.id, key: storyAskKey(s.id, stop.id), options: stop.ask.options }])),
  ),
]);

describe('the order options are shown in', () => {
  it('is a permutation of the written options, the same every time for the same question', () => {
    for (const n of [2, 3, 4, 5]) {
      const order = optionOrder('l', 'q', n);
      expect([...order].sort()).toEqual(Array.from({ length: n }, (_, i) => i));
      expect(optionOrder('l', 'q', n)).toEqual(order);
    }
    // Another question, or the same id in another lesson, is drawn from its own stream.
    const orders = new Set(['a', 'b', 'c', 'd', 'e', 'f'].map((q) => optionOrder('l', q, 4).join()));
    expect(orders.size).toBeGreaterThan(1);
  });

  it('does not give the answer away: across the course, the right answer is not where the author wrote it most of the time', () => {
    // Authors write the right answer first in most questions; shown as written, "pick the first" would pass the quiz.
    const single = questions.filter((q) => q.options.filter((o) => o.correct).length === 1);
    expect(single.length).toBeGreaterThan(50);
    const writtenFirst = single.filter((q) => q.options[0]!.correct).length;
    const shownFirst = single.filter((q) => q.options[optionOrder(q.lesson, q.key, q.options.length)[0]!]!.correct).length;
    expect(writtenFirst / single.length).toBeGreaterThan(0.8);
    // Each position holds the right answer for some questions, and the first no more often than chance allows.
    const positions = new Set(single.map((q) => optionOrder(q.lesson, q.key, q.options.length).findIndex((k) => q.options[k]!.correct)));
    expect([...positions].sort()).toEqual([0, 1, 2, 3]);
    expect(shownFirst / single.length).toBeLessThan(0.45);
  });

  it('is the order the lab draws, while an answer is kept and judged by the written index', () => {
    const options: Option[] = [
      { text: 'Right one', correct: true, why: 'It is.' },
      { text: 'Wrong one', correct: false, why: 'It is not.' },
      { text: 'Other one', correct: false, why: 'Nor this.' },
    ];
    const draw = (chosen: number[] | null): string =>
      renderToStaticMarkup(
        createElement(Choices, {
          name: 'q',
          prompt: 'Which?',
          multi: false,
          options,
          order: [2, 0, 1],
          chosen,
          onAnswer: () => undefined,
          draw: (t: string) => t,
        }),
      );
    const html = draw(null);
    expect([...html.matchAll(/data-option="(\d)"/g)].map((m) => m[1])).toEqual(['2', '0', '1']);
    expect(html.indexOf('Other one')).toBeLessThan(html.indexOf('Right one'));
    // Written option 0, shown second, is the learner's right answer.
    expect(draw([0])).toContain('data-right="true"');
    expect(draw([2])).toContain('data-right="false"');
    expect(draw([0])).toMatch(/class="option right" data-option="0"/);
  });
});
