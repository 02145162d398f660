import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { Option } from '../../sim/lessons/types.js';
import { Choices } from '../../web/lessons/Choices.js';

/* What an answered question says beside each option: right or wrong, and what the learner did with it. */

const options: Option[] = [
  { text: 'A frozen container', correct: true, why: 'It stops without dying.' },
  { text: 'A partition', correct: true, why: 'It cannot refresh.' },
  { text: 'A crash', correct: false, why: 'A crashed process stops believing.' },
];

/** The words before each option's reason, by written index, once `chosen` is checked. */
function labels(multi: boolean, chosen: number[]): string[] {
  const html = renderToStaticMarkup(
    createElement(Choices, { name: 'q', prompt: 'Which?', multi, options, order: [0, 1, 2], chosen, onAnswer: () => undefined, draw: (t: string) => t }),
  );
  return [...html.matchAll(/<p class="why"><strong>([^<]*)<\/strong>/g)].map((m) => m[1]!);
}

describe('an answered question', () => {
  it('says a right option the learner did not tick was missed, on a multi-select question', () => {
    expect(labels(true, [0])).toEqual(['Right (your answer):', 'Right (you missed it):', 'Wrong:']);
    expect(labels(true, [0, 2])).toEqual(['Right (your answer):', 'Right (you missed it):', 'Wrong (your answer):']);
    expect(labels(true, [0, 1])).toEqual(['Right (your answer):', 'Right (your answer):', 'Wrong:']);
  });

  it('says the right answer was missed after a wrong single choice', () => {
    const single: Option[] = [options[0]!, options[2]!];
    const html = renderToStaticMarkup(
      createElement(Choices, {
        name: 's',
        prompt: 'Which?',
        multi: false,
        options: single,
        order: [0, 1],
        chosen: [1],
        onAnswer: () => undefined,
        draw: (t: string) => t,
      }),
    );
    expect(html).toContain('Right (you missed it):');
    expect(html).toContain('Wrong (your answer):');
  });
});
