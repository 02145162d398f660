import { useEffect } from 'react';

/** The document's title for a page: what its one h1 says, then the lab's name, as a tab, a bookmark or the history lists it. */
export function usePageTitle(heading: string): void {
  useEffect(() => {
    document.title = `${heading} — Locklab`;
  }, [heading]);
}

/**
 * A view's one h1, naming the view and what it shows ("Lab:
 * pause-past-expiry"): a screen reader announces it first, and the focus
 * lands on it when the view opens. Where the view's own toolbar and figure
 * already show what it is, the heading is for screen readers only (`hidden`),
 * so the page does not say it twice.
 */
export function PageHeading({ text, hidden = false, id }: { text: string; hidden?: boolean; id?: string }) {
  usePageTitle(text);
  return (
    <h1 className={hidden ? 'sr-only' : 'view-title'} tabIndex={-1} data-page-heading {...(id === undefined ? {} : { id })}>
      {text}
    </h1>
  );
}
