import { toJsxRuntime } from 'hast-util-to-jsx-runtime';
import type { ReactNode } from 'react';
import { Fragment, jsx, jsxs } from 'react/jsx-runtime';
import type { LabLesson } from './types.js';

/** A question's or an option's text as its lesson draws it: its Markdown where it has any (text-tree.ts, `shortTextTrees`), else its words. */
export function shortText(lesson: LabLesson, text: string): ReactNode {
  // Own keys only: an option reading "constructor" is words, not the object's.
  if (!Object.hasOwn(lesson.shortTexts, text)) return text;
  return toJsxRuntime(lesson.shortTexts[text]!, { Fragment, jsx, jsxs, ignoreInvalidStyle: true, passKeys: true });
}
