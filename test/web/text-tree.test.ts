import { toJsxRuntime, type Components } from 'hast-util-to-jsx-runtime';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { Fragment, jsx, jsxs } from 'react/jsx-runtime';
import Markdown from 'react-markdown';
import remarkDirective from 'remark-directive';
import { describe, expect, it } from 'vitest';
import { loadLessons, LESSONS_DIR } from '../../sim/cli/lessons.js';
import type { Question } from '../../sim/lessons/types.js';
import { Choices } from '../../web/lessons/Choices.js';
import { shortText } from '../../web/lessons/short-text.js';
import { lessonTree, remarkEmbeds, shortTextTree, shortTextTrees } from '../../web/lessons/text-tree.js';
import type { LabLesson } from '../../web/lessons/types.js';

// The embeds drawn as what they are, so the comparison sees where each one lands.
const components = {
  'lesson-embed': (props: Record<string, string>) => createElement('aside', { 'data-kind': props['data-kind'], 'data-id': props['data-id'] }),
} as unknown as Components;

/** The text as react-markdown draws it on every render, the way the lab drew lessons before. */
function onEachRender(body: string): string {
  return renderToStaticMarkup(createElement(Markdown, { remarkPlugins: [remarkDirective, remarkEmbeds], components, skipHtml: true }, body));
}

/** The text from the tree made at build time, as the lab draws it now. */
function fromTree(body: string): string {
  const tree = JSON.parse(JSON.stringify(lessonTree(body))) as ReturnType<typeof lessonTree>;
  return renderToStaticMarkup(toJsxRuntime(tree, { Fragment, jsx, jsxs, components, ignoreInvalidStyle: true, passKeys: true, passNode: true }));
}

describe('a lesson’s text made a tree at build time', () => {
  const lessons = loadLessons(LESSONS_DIR, false).lessons;

  it('draws every lesson exactly as react-markdown did', () => {
    expect(lessons.length).toBeGreaterThanOrEqual(12);
    for (const l of lessons) {
      const html = fromTree(l.body);
      expect(html, l.folder).toBe(onEachRender(l.body));
      expect(html).toContain('<aside data-kind="story"');
    }
  });

  it('leaves raw HTML out and keeps only safe link addresses, as react-markdown does', () => {
    const body = [
      'Text with <b>bold</b> and <script>alert(1)</script> inline.',
      '',
      '<div onclick="x()">a block</div>',
      '',
      '[ok](https://example.org/a?b=1) [rel](#/lesson/04-pause-past-expiry) [bad](javascript:alert(1)) ![img](data:image/png;base64,AAAA)',
      '',
      '::question{id=q-one}',
    ].join('\n');
    const html = fromTree(body);
    expect(html).toBe(onEachRender(body));
    expect(html).not.toContain('<script');
    expect(html).not.toContain('onclick');
    expect(html).not.toContain('javascript:');
    expect(html).toContain('href="https://example.org/a?b=1"');
    expect(html).toContain('<aside data-kind="question" data-id="q-one"></aside>');
  });

  it('keeps no source positions: the shipped tree is the drawing alone', () => {
    expect(JSON.stringify(lessonTree('# A\n\ntext *b*\n'))).not.toContain('"position"');
  });
});

describe('a lesson’s short texts made trees at build time', () => {
  // As the lab loads them: through JSON, with the trees of their short texts beside them.
  const lessons = loadLessons(LESSONS_DIR, false).lessons.map(
    (l) => JSON.parse(JSON.stringify({ ...l, tree: lessonTree(l.body), shortTexts: shortTextTrees(l) })) as LabLesson,
  );

  /** A question drawn answered, as the lab draws it once the learner has checked an answer: every option with its reason. */
  function answered(lesson: LabLesson, q: Omit<Question, 'id' | 'predict'>): string {
    return renderToStaticMarkup(
      createElement(Choices, {
        name: 'q',
        prompt: q.prompt,
        multi: q.multi === true,
        options: q.options,
        order: q.options.map((_, i) => i),
        chosen: [0],
        onAnswer: () => undefined,
        draw: (text: string) => shortText(lesson, text),
      }),
    );
  }

  it('draws the Markdown of every question, option and reason: a code span is code, and no backtick is left', () => {
    let questions = 0;
    for (const l of lessons) {
      const asks = l.stories.flatMap((s) => s.stops.flatMap((stop) => (stop.ask === undefined ? [] : [stop.ask])));
      for (const q of [...l.quiz, ...asks]) {
        const html = answered(l, q);
        expect(html, `${l.folder}: ${q.prompt}`).not.toContain('`');
        questions++;
      }
    }
    expect(questions).toBeGreaterThan(60);
    const fencing = lessons.find((l) => l.folder === '05-fencing-tokens')!;
    const design = fencing.quiz.find((q) => q.prompt.includes('`SET NX PX`'))!;
    expect(answered(fencing, design)).toContain('<legend class="prompt">Is one Redis server with <code>SET NX PX</code> plus a fencing token');
  });

  it('keeps a text with no Markdown in it as its words, and leaves it out of the lesson’s trees', () => {
    // A key is a key: short texts place no embed, so `:job` is no directive.
    for (const text of ['A request for app-v1:job, which A holds, so B is refused.', 'Rejected: 33 < 34.']) {
      expect(shortTextTree(text)).toEqual({ type: 'root', children: [{ type: 'text', value: text }] });
    }
    const releasing = lessons.find((l) => l.folder === '06-releasing-safely')!;
    const keys = Object.keys(releasing.shortTexts);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((k) => k.includes('`'))).toBe(true);
    // Looked up by its own keys: a text that names something every object has is still its words.
    expect(renderToStaticMarkup(createElement('p', null, shortText(releasing, 'constructor')))).toBe('<p>constructor</p>');
  });

  it('leaves raw HTML out of a short text and keeps only safe link addresses', () => {
    const html = renderToStaticMarkup(
      toJsxRuntime(shortTextTree('Say <b>x</b> and [go](javascript:alert(1)) to `y`'), { Fragment, jsx, jsxs, passKeys: true }),
    );
    expect(html).toBe('Say x and <a href="">go</a> to <code>y</code>');
  });
});
