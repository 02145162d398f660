import { toJsxRuntime, type Components } from 'hast-util-to-jsx-runtime';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { Fragment, jsx, jsxs } from 'react/jsx-runtime';
import Markdown from 'react-markdown';
import remarkDirective from 'remark-directive';
import { describe, expect, it } from 'vitest';
import { loadLessons, LESSONS_DIR } from '../../sim/cli/lessons.js';
import { lessonTree, remarkEmbeds } from '../../web/lessons/text-tree.js';

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
