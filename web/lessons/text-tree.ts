import type { Root } from 'hast';
import { urlAttributes } from 'html-url-attributes';
import { defaultUrlTransform } from 'react-markdown';
import remarkDirective from 'remark-directive';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import { visit } from 'unist-util-visit';

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
  const tree = processor.runSync(processor.parse(body)) as Root;
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
