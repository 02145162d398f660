import remarkDirective from 'remark-directive';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { visit } from 'unist-util-visit';

/** The embeds a lesson's Markdown may place, as `::name{id=…}` leaf directives. */
export const EMBEDS = ['story', 'question', 'quiz', 'challenge', 'sweep'] as const;
export type EmbedName = (typeof EMBEDS)[number];

export interface Directive {
  readonly name: string;
  readonly id: string | undefined;
  readonly line: number;
  /** Leaf (`::x`), container (`:::x`) or text (`:x`) directive: only leaves are embeds. */
  readonly form: 'leaf' | 'container' | 'text';
}

export interface Heading {
  readonly depth: number;
  readonly title: string;
  readonly line: number;
}

interface MdNode {
  type: string;
  name?: string;
  depth?: number;
  value?: string;
  attributes?: Record<string, string | null | undefined> | null;
  children?: MdNode[];
  position?: { start: { line: number } };
}

function plainText(node: MdNode): string {
  if (typeof node.value === 'string') return node.value;
  return (node.children ?? []).map(plainText).join('');
}

/** The anchor a step heading gets in the lab: `step-` and its words in lower case, joined by dashes. */
export function stepAnchor(title: string): string {
  const words = title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `step-${words === '' ? 'untitled' : words.slice(0, 60)}`;
}

/** Reads a lesson body with the same parser the lab renders it with, and lists its directives and headings. */
export function outline(body: string, lineOffset = 0): { directives: Directive[]; headings: Heading[] } {
  const tree = unified().use(remarkParse).use(remarkDirective).parse(body) as MdNode;
  const directives: Directive[] = [];
  const headings: Heading[] = [];
  visit(tree as never, (raw: unknown) => {
    const node = raw as MdNode;
    const line = (node.position?.start.line ?? 0) + lineOffset;
    if (node.type === 'leafDirective' || node.type === 'containerDirective' || node.type === 'textDirective') {
      const form = node.type === 'leafDirective' ? 'leaf' : node.type === 'containerDirective' ? 'container' : 'text';
      directives.push({ name: node.name ?? '', id: node.attributes?.id ?? undefined, line, form });
    } else if (node.type === 'heading') {
      headings.push({ depth: node.depth ?? 1, title: plainText(node), line });
    }
  });
  return { directives, headings };
}
