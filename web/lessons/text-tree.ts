import type { Root } from 'hast';
import { urlAttributes } from 'html-url-attributes';
import { defaultUrlTransform } from 'react-markdown';
import remarkDirective from 'remark-directive';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import { visit } from 'unist-util-visit';
import type { Lesson } from '../../sim/lessons/types.js';

/** Turns each `::name{id=…}` leaf directive into a `lesson-embed` element the lab maps to a component. */
export function remarkEmbeds() {
  return (tree: unknown) => {
    visit(
      tree as never,
      (node: { type: string; name?: string; attributes?: Record<string, string | null | undefined> | null; data?: Record<string, unknown> }) => {
        if (node.type !== 'leafDirective') return;
        node.data = { hName: 'lesson-embed', hProperties: { 'data-kind': node.name ?? '', 'data-id': node.attributes?.id ?? '' } };
      },
    );
  };
}

/**
 * A lesson's Markdown as the HTML tree the lab draws, made once when the
 * lab is built: the same steps react-markdown takes on every render, so the
 * page does not ship a Markdown parser or run it when a lesson opens (it
 * was the largest part of opening one). Raw HTML is left out, never drawn;
 * links and images keep only safe addresses; source positions are dropped.
 */
export function lessonTree(body: string): Root {
  const processor = unified().use(remarkParse).use(remarkDirective).use(remarkEmbeds).use(remarkRehype, { allowDangerousHtml: true });
  return cleaned(processor.runSync(processor.parse(body)) as Root);
}

/**
 * A short text of a lesson (a question, an option, why it is right or
 * wrong) as the tree the lab draws in its place: its Markdown, a code span
 * or emphasis, made the same way as the lesson's text, with the one
 * paragraph it makes unwrapped. Without directives: a short text places no
 * embed, and `lock:job` in one is a key, not a directive.
 */
export function shortTextTree(text: string): Root {
  const processor = unified().use(remarkParse).use(remarkRehype, { allowDangerousHtml: true });
  const tree = cleaned(processor.runSync(processor.parse(text)) as Root);
  const only = tree.children.length === 1 ? tree.children[0]! : undefined;
  return only?.type === 'element' && only.tagName === 'p' ? { type: 'root', children: only.children } : tree;
}

/**
 * The trees of a lesson's short texts that are more than their words (see
 * `shortTextTree`), by text: the questions and options of its quiz and of
 * its stories' stops. Most are plain words, drawn as they are, and are left
 * out.
 */
export function shortTextTrees(lesson: Lesson): Record<string, Root> {
  const questions = [...lesson.quiz, ...lesson.stories.flatMap((s) => s.stops.flatMap((stop) => (stop.ask === undefined ? [] : [stop.ask])))];
  const out: Record<string, Root> = {};
  for (const text of questions.flatMap((q) => [q.prompt, ...q.options.flatMap((o) => [o.text, o.why])])) {
    const tree = shortTextTree(text);
    const word = tree.children.length === 1 ? tree.children[0]! : undefined;
    if (word?.type !== 'text' || word.value !== text) out[text] = tree;
  }
  return out;
}

/** Raw HTML left out, link addresses made safe, source positions dropped: what react-markdown does before it draws. */
function cleaned(tree: Root): Root {
  visit(tree, (node, index, parent) => {
    delete node.position;
    if (node.type === 'raw' && parent !== undefined && index !== undefined) {
      parent.children.splice(index, 1);
      return index;
    }
    if (node.type !== 'element') return;
    for (const [key, tags] of Object.entries(urlAttributes)) {
      if (Object.hasOwn(node.properties, key) && (tags === null || tags.includes(node.tagName)))
        node.properties[key] = defaultUrlTransform(String(node.properties[key] ?? ''));
    }
  });
  return tree;
}
