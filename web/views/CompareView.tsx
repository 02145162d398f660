import { useEffect, useMemo, useState } from 'react';
import { formatInstant } from '../../sim/time.js';
import { FilePicker } from '../components/FilePicker.js';
import { PanelHeadingLevel } from '../components/heading.js';
import { PageHeading } from '../components/PageHeading.js';
import { SidePanel } from '../components/SidePanel.js';
import { Transport } from '../components/Transport.js';
import { VerdictView } from '../components/VerdictView.js';
import { firstDivergenceUs } from '../model/diverge.js';
import { realParting } from '../model/real-parting.js';
import { fencingPair } from '../state/pairs.js';
import { openRecording, recordingOf, recordingsFor } from '../state/recorded.js';
import { loadTraceFile } from '../state/session.js';
import { useTrace, type LoadedTrace } from '../state/traces.js';
import { useUi } from '../state/ui.js';
import { fullDomainOf } from '../state/zoom.js';
import { Legend } from '../timeline/Legend.js';
import { Timeline } from '../timeline/Timeline.js';
import { ClientsCode } from '../components/ClientsCode.js';
import { ForkDialog } from './ForkDialog.js';
import { LinkButton } from './LinkButton.js';

/** Why two traces are not two runs of one scenario, or null when they are. */
export function unrelated(a: LoadedTrace, b: LoadedTrace): string | null {
  const sa = a.doc.scenario;
  const sb = b.doc.scenario;
  if (sa.name !== sb.name) return `they are runs of different scenarios (${sa.name} and ${sb.name})`;
  const ca = sa.clients.map((c) => c.name).join(', ');
  const cb = sb.clients.map((c) => c.name).join(', ');
  if (ca !== cb) return `their clients differ (${ca} and ${cb})`;
  if (sa.store.kind !== sb.store.kind) return `they use different stores (${sa.store.kind} and ${sb.store.kind})`;
  return null;
}

/**
 * Two traces on one time axis: a fork beside its original, fencing off
 * beside on, or a simulated run beside one recorded on real servers. The
 * runs are numbered, Run 1 and Run 2, so their names never read as the
 * clients' A and B.
 */
export function CompareView() {
  const primaryId = useUi((s) => s.primaryId);
  const secondaryId = useUi((s) => s.secondaryId);
  const note = useUi((s) => s.secondaryNote);
  const a = useTrace(primaryId);
  const b = useTrace(secondaryId);
  const [forkOpen, setForkOpen] = useState(false);

  const fencingVariant = async () => {
    if (a === null) return;
    const t = await fencingPair(a);
    if (t !== null) useUi.getState().set({ secondaryId: t.id, secondaryNote: `the same run with fencing ${a.doc.scenario.resource.fencing ? 'off' : 'on'}` });
  };

  // Opening Compare with nothing to compare shows the lesson's point at once: the same run with fencing flipped.
  useEffect(() => {
    if (a !== null && b === null && useUi.getState().busy === null) void fencingVariant();
    // The variant depends on the first trace alone.
  }, [a?.id, b?.id]);

  const apart = a !== null && b !== null ? unrelated(a, b) : null;
  // A run recorded on real servers never matches another to the microsecond: it parts where a client's answers do.
  const real = useMemo(
    () => (a !== null && b !== null && apart === null && (a.doc.source === 'real' || b.doc.source === 'real') ? realParting(a.doc, b.doc) : null),
    [a, b, apart],
  );
  const diverge = useMemo(
    () => (real !== null ? real.divergeUs : a !== null && b !== null && apart === null ? firstDivergenceUs(a.doc.events, b.doc.events) : null),
    [a, b, apart, real],
  );
  // A recording of a racy story is one of several real runs, not all of which went the simulation's way.
  const racyRuns = recordingOf(b)?.realRuns;
  // The heading stays one element while a trace loads, so the focus a new page gives it is not lost when the trace arrives.
  const heading = <PageHeading text={a === null ? 'Compare' : `Compare: ${a.doc.scenario.name}`} hidden />;
  if (a === null)
    return (
      <>
        {heading}
        <p className="muted">Run or open a trace in the Lab first.</p>
      </>
    );
  const full = fullDomainOf(primaryId, secondaryId);

  return (
    <>
      {heading}
      <div className="compare">
        <div className="toolbar" role="group" aria-label="What to compare">
          <button type="button" onClick={() => void fencingVariant()}>
            Compare with fencing {a.doc.scenario.resource.fencing ? 'off' : 'on'}
          </button>
          <button type="button" onClick={() => setForkOpen(true)} data-testid="compare-fork">
            Change one thing…
          </button>
          {recordingsFor(a.doc.scenario).map((r) => (
            <button type="button" key={r.file} data-testid="compare-recorded" onClick={() => void openRecording(r)} title={r.recordedOn}>
              Compare with real servers ({r.client === 'symfony' ? 'Symfony Lock' : 'Locklab client'})
            </button>
          ))}
          <FilePicker label="Compare with a trace file…" onFile={(f) => void loadTraceFile(f, 'secondary')} testId="compare-file" />
          <LinkButton />
        </div>
        {apart !== null && (
          <p className="notice notice-info" role="status" data-testid="unrelated">
            These two traces do not compare event for event: {apart}. They share a time axis, but no line marks where they part.
          </p>
        )}
        {real !== null && (
          <p className="diverge-note" data-testid="divergence" data-parts={real.divergeUs !== null}>
            {real.sentence}
          </p>
        )}
        {racyRuns !== undefined && (
          <p className="small" data-testid="real-odds">
            A race on real servers: of the {racyRuns.of} real runs recorded, {racyRuns.ended} ended as the simulation does; Run 2 is one of them.
          </p>
        )}
        {real === null && diverge !== null && b !== null && (
          <p className="diverge-note" data-testid="divergence">
            The runs part at <strong>{formatInstant(diverge)}</strong> (dashed line).
          </p>
        )}
        {real === null && apart === null && diverge === null && b !== null && <p className="diverge-note">The two runs are identical.</p>}
        <Timeline trace={a} fullDomain={full} primary title={`Run 1 · ${a.label}`} divergeUs={diverge} />
        {b !== null ? (
          <Timeline trace={b} fullDomain={full} primary={false} title={`Run 2 · ${note || b.label}`} divergeUs={diverge} />
        ) : (
          <p className="muted">Running the second trace…</p>
        )}
        <Legend traces={b === null ? [a] : [a, b]} divergence={diverge !== null} />
        <Transport trace={a} />
        {/* Each run's panels are headed under the run's own h2. */}
        <PanelHeadingLevel.Provider value={3}>
          <div className="compare-grid">
            <div>
              <h2 className="panel-title">Run 1</h2>
              <VerdictView trace={a} />
              <SidePanel trace={a} />
            </div>
            {b !== null && (
              <div>
                <h2 className="panel-title">Run 2</h2>
                <VerdictView trace={b} primary={false} />
                <SidePanel trace={b} primary={false} />
              </div>
            )}
          </div>
        </PanelHeadingLevel.Provider>
        <ClientsCode trace={a} other={b} />
        <ForkDialog trace={a} open={forkOpen} onClose={() => setForkOpen(false)} />
      </div>
    </>
  );
}
