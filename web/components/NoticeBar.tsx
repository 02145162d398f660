import { useUi } from '../state/ui.js';

/**
 * Problems with a file or a link, as plain text lines: where (a JSON path or
 * a link parameter) and what. Text only, never HTML from the input.
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
      <ul className="issues">
        {notice.issues.map((i, k) => (
          <li key={k}>
            <code>{i.path === '' ? notice.source : `${notice.source}: ${i.path}`}</code> {i.message}
          </li>
        ))}
      </ul>
    </div>
  );
}
