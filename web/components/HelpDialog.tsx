import { useEffect, useRef } from 'react';
import { SHORTCUTS } from '../state/shortcuts.js';
import { useUi } from '../state/ui.js';

/** The keyboard shortcuts and what the marks mean, in a modal dialog (Esc closes it). */
export function HelpDialog() {
  const open = useUi((s) => s.helpOpen);
  const set = useUi((s) => s.set);
  const ref = useRef<HTMLDialogElement | null>(null);
  useEffect(() => {
    const d = ref.current;
    if (d === null) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog ref={ref} className="help" aria-labelledby="help-title" onClose={() => set({ helpOpen: false })} data-testid="help">
      <h2 id="help-title">Keys and marks</h2>
      <div className="help-grid">
        <table>
          <caption>Keyboard</caption>
          <tbody>
            {SHORTCUTS.map((s) => (
              <tr key={s.does}>
                <th scope="row">
                  {s.keys.map((k, i) => (
                    <span key={k}>
                      {i > 0 && ' '}
                      <kbd>{k}</kbd>
                    </span>
                  ))}
                </th>
                <td>{s.does}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <div>
          <h3>On the timeline</h3>
          <ul className="legend">
            <li>
              <svg width="40" height="14" aria-hidden="true">
                <rect className="belief" width="40" height="12" y="1" rx="3" />
              </svg>{' '}
              solid bar: the client <em>believes</em> it holds the lock
            </li>
            <li>
              <svg width="40" height="14" aria-hidden="true">
                <rect className="truth" width="40" height="12" y="1" />
              </svg>{' '}
              hatched bar: the store <em>actually</em> holds it for that client (◷ expired, ✂ deleted, ⇄ overwritten, ↯ lost)
            </li>
            <li>
              <svg width="40" height="14" aria-hidden="true">
                <rect className="band-double" width="40" height="14" />
                <rect className="band-double-hatch" width="40" height="14" />
              </svg>{' '}
              cross-hatched band: double ownership, two clients believe at once
            </li>
            <li>
              <svg width="40" height="14" aria-hidden="true">
                <rect className="pause" width="40" height="14" />
              </svg>{' '}
              dotted: the process is paused; ✕ crash; ⇥ clock jump; ∿ drift; ✉ lost message
            </li>
            <li>● ✓ write accepted · ■ ✕ write rejected by fencing · ▲ ! stale write accepted (damage)</li>
          </ul>
          <p>Wheel or pinch to zoom, drag to pan, click to move the playhead, drag the handle on the axis to scrub.</p>
        </div>
      </div>
      <form method="dialog">
        <button type="submit" autoFocus>
          Close
        </button>
      </form>
    </dialog>
  );
}
