import { createContext, useContext } from 'react';

export type HeadingTag = 'h2' | 'h3' | 'h4';

/**
 * The level the lab's panels (the side panel's sections, the event details,
 * the clients' code) take for their headings where they are drawn. In the
 * Lab they sit under the view's h1 and keep their own level, 2; in Compare
 * each run's panels sit under that run's h2, so the run sets 3; in a lesson
 * they sit in an embed whose title is an h3 under a step's h2, so the embed's
 * stage sets 4: a screen reader's outline then has them inside the story,
 * not beside the lesson's steps.
 */
export const PanelHeadingLevel = createContext<3 | 4 | null>(null);

/** The tag of a panel's heading: its own level, or the one the place it is drawn in sets. */
export function usePanelHeading(own: 2): HeadingTag {
  const level = useContext(PanelHeadingLevel);
  return `h${level ?? own}`;
}
