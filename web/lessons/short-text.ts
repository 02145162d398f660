import { toJsxRuntime } from 'hast-util-to-jsx-runtime';
import type { ReactNode } from 'react';
import { Fragment, jsx, jsxs } from 'react/jsx-runtime';
import type { LabLesson } from './types.js';

/** A question's or an option's text as its lesson draws it: its Markdown where it has any (text-tree.ts, `shortTextTrees`), else its words. */
export function shortText(lesson: LabLesson, text: string): ReactNode {
  const tree = lesson.shortTexts[text];
  return tree === undefined ? text : toJsxRuntime(tree, { Fragment, jsx, jsxs, ignoreInvalidStyle: true, passKeys: true });
}
