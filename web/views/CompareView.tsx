import { useEffect, useMemo, useState } from 'react';
import { formatInstant } from '../../sim/time.js';
import { FilePicker } from '../components/FilePicker.js';
import { SidePanel } from '../components/SidePanel.js';
import { Transport } from '../components/Transport.js';
import { VerdictView } from '../components/VerdictView.js';
import { firstDivergenceUs } from '../model/diverge.js';
import { openRecording, recordingsFor } from '../state/recorded.js';
import { labelOf, loadTraceFile, runOrigin, withOverride } from '../state/session.js';
import { useTrace } from '../state/traces.js';
import { useUi } from '../state/ui.js';
import { fullDomainOf } from '../state/zoom.js';
import { Timeline } from '../timeline/Timeline.js';
import { forkBase } from './fork.js';
import { LinkButton } from './LinkButton.js';

/**
 * Two traces on one time axis: a fork beside its original, fencing off
 * beside on, or a simulated run beside one recorded on real servers.
 */
export function CompareView() {
  const primaryId = useUi((s) => s.primaryId);
  const secondaryId = useUi((s) => s.secondaryId);
  const note = useUi((s) => s.secondaryNote);
  const a = useTrace(primaryId);
  const b = useTrace(secondaryId);
  const [overrideText, setOverrideText] = useState('');

  const fencingVariant = async () => {
    if (a === null) return;
    const base = forkBase(a);
    const origin = { ...base, overrides: withOverride(base.overrides, 'resource.fencing', String(!a.doc.scenario.resource.fencing)) };
    const t = await runOrigin(origin);
    if (t !== null) useUi.getState().set({ secondaryId: t.id, secondaryNote: `the same run with fencing ${a.doc.scenario.resource.fencing ? 'off' : 'on'}` });
  };

  // Opening Compare with nothing to compare shows the lesson's point at once: the same run with fencing flipped.
  useEffect(() => {
    if (a !== null && b === null && useUi.getState().busy === null) void fencingVariant();
  }, [a?.id, b?.id]);

  const diverge = useMemo(() => (a !== null && b !== null ? firstDivergenceUs(a.doc.events, b.doc.events) : null), [a, b]);
  if (a === null) return <p className="muted">Run or open a trace in the Lab first.</p>;
  const full = fullDomainOf(primaryId, secondaryId);

  const runVariant = async () => {
    const base = forkBase(a);
    const extra = overrideText
      .split(/\s+/)
      .map((s) => s.trim())
      .filter((s) => s !== '');
    let overrides = base.overrides as string[];
    for (const o of extra) overrides = withOverride(overrides, o.slice(0, Math.max(0, o.indexOf('='))), o.slice(o.indexOf('=') + 1));
    const t = await runOrigin({ ...base, overrides });
    if (t !== null) useUi.getState().set({ secondaryId: t.id, secondaryNote: labelOf(t.origin) });
  };

  return (
    <div className="compare">
      <div className="toolbar" role="group" aria-label="What to compare">
        <button type="button" onClick={() => void fencingVariant()}>
          Compare with fencing {a.doc.scenario.resource.fencing ? 'off' : 'on'}
        </button>
        <form
          className="inline-form"
          onSubmit={(ev) => {
            ev.preventDefault();
            void runVariant();
          }}
        >
          <label>
            Or with overrides{' '}
            <input
              type="text"
              value={overrideText}
              onChange={(ev) => setOverrideText(ev.target.value)}
              placeholder="clients.A.ttlMs=20000"
              className="override-input"
            />
          </label>
          <button type="submit">Run</button>
        </form>
        {recordingsFor(a.doc.scenario).map((r) => (
          <button type="button" key={r.file} data-testid="compare-recorded" onClick={() => void openRecording(r)} title={r.recordedOn}>
            Compare with real servers ({r.client === 'symfony' ? 'Symfony Lock' : 'Locklab client'})
          </button>
        ))}
        <FilePicker label="Compare with a trace file…" onFile={(f) => void loadTraceFile(f, 'secondary')} testId="compare-file" />
        <LinkButton />
      </div>
      {diverge !== null && b !== null && (
        <p className="diverge-note" data-testid="divergence">
          The runs part at <strong>{formatInstant(diverge)}</strong> (dashed line).
        </p>
      )}
      {diverge === null && b !== null && <p className="diverge-note">The two runs are identical.</p>}
      <Timeline trace={a} fullDomain={full} primary title={`A · ${a.label}`} divergeUs={diverge} />
      {b !== null ? (
        <Timeline trace={b} fullDomain={full} primary={false} title={`B · ${note || b.label}`} divergeUs={diverge} />
      ) : (
        <p className="muted">Running the second trace…</p>
      )}
      <Transport trace={a} />
      <div className="compare-grid">
        <div>
          <h2 className="panel-title">A</h2>
          <VerdictView verdict={a.doc.verdict} />
          <SidePanel trace={a} />
        </div>
        {b !== null && (
          <div>
            <h2 className="panel-title">B</h2>
            <VerdictView verdict={b.doc.verdict} />
            <SidePanel trace={b} primary={false} />
          </div>
        )}
      </div>
    </div>
  );
}
