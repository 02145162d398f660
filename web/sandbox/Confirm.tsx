import { useRef } from 'react';

/** A question before something the user built is dropped: what will be lost, and two ways out. */
export interface Ask {
  readonly message: string;
  readonly yes: string;
  /** The button that keeps the form as it is: "Keep my changes" unless the form holds none. */
  readonly no?: string;
  readonly run: () => void;
}

/**
 * Escape keeps the changes, as "Keep my changes" does. Either way out gives
 * the focus back to the control that asked (Load, Blank scenario, the store
 * choice…), or to the main area if it is gone, rather than leaving it on the
 * page's body where the question was.
 */
export function Confirm({ ask, close }: { ask: Ask; close: () => void }) {
  // Read while drawn, before "Keep my changes" takes the focus.
  const opener = useRef<Element | null | undefined>(undefined);
  if (opener.current === undefined) opener.current = document.activeElement;
  const giveBack = () => {
    const o = opener.current;
    (o instanceof HTMLElement && o.isConnected && o !== document.body ? o : document.getElementById('main'))?.focus();
  };
  const keep = () => {
    close();
    giveBack();
  };
  return (
    <div
      className="notice notice-info confirm"
      role="alertdialog"
      aria-labelledby="confirm-message"
      data-testid="confirm"
      onKeyDown={(ev) => {
        if (ev.key !== 'Escape') return;
        ev.preventDefault();
        ev.stopPropagation();
        keep();
      }}
    >
      <p id="confirm-message">{ask.message}</p>
      <div className="notice-actions">
        <button
          type="button"
          className="primary"
          onClick={() => {
            close();
            ask.run();
            giveBack();
          }}
        >
          {ask.yes}
        </button>
        <button type="button" onClick={keep} autoFocus>
          {ask.no ?? 'Keep my changes'}
        </button>
      </div>
    </div>
  );
}
