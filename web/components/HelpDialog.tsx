import { useEffect, useRef } from 'react';
import { SHORTCUTS } from '../state/shortcuts.js';
import { useUi } from '../state/ui.js';
import { Legend } from '../timeline/Legend.js';

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
          <Legend traces={[]} all />
          <p>
            Wheel or pinch to zoom, drag to pan, click a mark to see its details in the side panel, click elsewhere to move the playhead, drag the handle on the
            axis to scrub. Playback slows near each numbered finding and holds on it; n jumps to the next.
          </p>
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
