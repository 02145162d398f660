/** A question before something the user built is dropped: what will be lost, and two ways out. */
export interface Ask {
  readonly message: string;
  readonly yes: string;
  readonly run: () => void;
}

export function Confirm({ ask, close }: { ask: Ask; close: () => void }) {
  return (
    <div className="notice notice-info confirm" role="alertdialog" aria-labelledby="confirm-message" data-testid="confirm">
      <p id="confirm-message">{ask.message}</p>
      <div className="notice-actions">
        <button
          type="button"
          className="primary"
          onClick={() => {
            close();
            ask.run();
          }}
        >
          {ask.yes}
        </button>
        <button type="button" onClick={close} autoFocus>
          Keep my changes
        </button>
      </div>
    </div>
  );
}
