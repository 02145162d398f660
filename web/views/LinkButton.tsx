import { useState } from 'react';
import { currentLink } from '../state/session.js';

/** Copies the permalink of the current view; says why when there cannot be one. */
export function LinkButton() {
  const [status, setStatus] = useState('');
  const copy = async () => {
    const link = await currentLink();
    if (!link.ok) {
      setStatus(link.reason);
      return;
    }
    const url = `${location.origin}${location.pathname}${link.hash}`;
    history.replaceState(null, '', link.hash);
    try {
      await navigator.clipboard.writeText(url);
      setStatus('Link copied.');
    } catch {
      setStatus('The address bar holds the link.');
    }
  };
  return (
    <>
      <button type="button" onClick={() => void copy()} data-testid="copy-link">
        Copy link
      </button>
      <span className="status" role="status">
        {status}
      </span>
    </>
  );
}
