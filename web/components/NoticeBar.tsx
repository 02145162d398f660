import { useUi } from '../state/ui.js';
import { Issues } from './Issues.js';

/**
 * Problems with a file or a link: what the lab took the input for, its
 * first problem, the rest folded, and what the user can do instead.
 */
export function NoticeBar() {
  const notice = useUi((s) => s.notice);
  const set = useUi((s) => s.set);
  if (notice === null) return null;
  return (
    <div className={`notice notice-${notice.tone}`} role="alert" data-testid="notice">
      <div className="notice-head">
        <strong>{notice.title}</strong>
        <button type="button" className="small-button" onClick={() => set({ notice: null })} aria-label="Dismiss this message">
          Dismiss
        </button>
      </div>
      <Issues source={notice.source} issues={notice.issues} what={notice.what} />
      {notice.actions !== undefined && notice.actions.length > 0 && (
        <div className="notice-actions">
          {notice.actions.map((a) => (
            <button
              key={a.label}
              type="button"
              onClick={() => {
                set({ notice: null });
                a.run();
              }}
            >
              {a.label}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
