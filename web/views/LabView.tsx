import { useEffect, useMemo, useState } from 'react';
import { serializeChromeTrace } from '../../sim/export/chrome.js';
import { BUILTIN_NAMES } from '../../sim/scenarios/index.js';
import { ClientsCode } from '../components/ClientsCode.js';
import { EventLog } from '../components/EventLog.js';
import { download, FilePicker } from '../components/FilePicker.js';
import { PageHeading } from '../components/PageHeading.js';
import { SidePanel } from '../components/SidePanel.js';
import { Summary } from '../components/side/Summary.js';
import { Transport } from '../components/Transport.js';
import { VerdictView } from '../components/VerdictView.js';
import { summaryParts } from '../model/fixes.js';
import { sweepLinkOf } from './sweep-link.js';
import { canPair, PAIR_AUTO_EVENTS, useUnfencedPair } from '../state/pairs.js';
import { useMedia } from '../state/useMedia.js';
import { loadTraceFile, runPrimary, withOverride } from '../state/session.js';
import { viewKeys } from '../state/shortcuts.js';
import { useTrace, type LoadedTrace } from '../state/traces.js';
import { useUi } from '../state/ui.js';
import { Legend } from '../timeline/Legend.js';
import { Timeline } from '../timeline/Timeline.js';
import { fullDomainOf } from '../state/zoom.js';
import { ForkDialog } from './ForkDialog.js';
import { forkBase } from './fork.js';
import { LinkButton } from './LinkButton.js';

/** Re-runs the current trace's scenario with fencing flipped, keeping the playhead and zoom where they are. */
export async function toggleFencing(t: LoadedTrace): Promise<void> {
  const base = forkBase(t);
  await runPrimary({ ...base, overrides: withOverride(base.overrides, 'resource.fencing', String(!t.doc.scenario.resource.fencing)) }, true);
}

/** What the same run does without fencing, in one sentence under the verdict of the fenced run. */
function PairNote({ unfenced }: { unfenced: LoadedTrace }) {
  const damage = unfenced.annotations.findings.filter((f) => f.kind === 'stale-accepted');
  return (
    <p className={`pair-note pair-${unfenced.doc.verdict.outcome}`} data-testid="pair-note">
      Without fencing, the same run is <strong>{unfenced.doc.verdict.outcome}</strong>
      {damage.length > 0 ? `: ${damage.map((f) => f.sentence).join('; ')} (the lane “without fencing” under the resource).` : '.'}
    </p>
  );
}

/** The lab: one trace on the timeline, the transport, and the side panel that reads the playhead. */
export function LabView() {
  const primaryId = useUi((s) => s.primaryId);
  const busy = useUi((s) => s.busy);
  const trace = useTrace(primaryId);
  // The summary strip stands in for the side panel only where the panel is not beside the timeline; elsewhere it is not rendered at all.
  const narrow = useMedia('(max-width: 1023px)');
  const [pairAsked, setPairAsked] = useState<string | null>(null);
  const unfenced = useUnfencedPair(trace, pairAsked !== null && pairAsked === trace?.id);
  const pair = useMemo(() => (unfenced === null ? null : { trace: unfenced, name: 'without fencing' }), [unfenced]);
  const [forkOpen, setForkOpen] = useState(false);
  const [seedText, setSeedText] = useState('');
  // The box shows the choice at once; the re-run that makes it true takes a moment.
  const [pendingFencing, setPendingFencing] = useState<boolean | null>(null);
  const sweepLink = useMemo(() => (trace === null ? undefined : sweepLinkOf(trace.origin, trace.doc.scenario)), [trace]);

  useEffect(() => {
    if (trace === null) return;
    setSeedText(String(trace.doc.seed));
    setPendingFencing(null);
    viewKeys.fencing = () => {
      setPendingFencing(!trace.doc.scenario.resource.fencing);
      void toggleFencing(trace);
    };
    viewKeys.fork = () => setForkOpen(true);
    return () => {
      viewKeys.fencing = null;
      viewKeys.fork = null;
    };
  }, [trace]);

  // The heading stays one element while the trace loads, so the focus a new page gives it is not lost when the trace arrives.
  const heading = <PageHeading text={trace === null ? 'Lab' : `Lab: ${trace.doc.scenario.name}`} hidden />;
  if (trace === null)
    return (
      <>
        {heading}
        <p className="muted">{busy ?? 'Loading…'}</p>
      </>
    );
  const origin = trace.origin;
  const builtin = origin.kind === 'builtin' ? origin.name : '';
  const fencing = pendingFencing ?? trace.doc.scenario.resource.fencing;

  return (
    <>
      {heading}
      <div className="lab">
        <div className="toolbar" role="group" aria-label="Scenario">
          <label>
            Scenario{' '}
            <select
              value={builtin}
              onChange={(ev) => void runPrimary({ kind: 'builtin', name: ev.target.value, seed: null, overrides: [] })}
              data-testid="scenario-select"
            >
              {builtin === '' && <option value="">{trace.doc.scenario.name} (custom)</option>}
              {BUILTIN_NAMES.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </label>
          <form
            className="inline-form"
            onSubmit={(ev) => {
              ev.preventDefault();
              const seed = Number(seedText);
              if (Number.isInteger(seed) && seed >= 0) void runPrimary({ ...forkBase(trace), seed });
            }}
          >
            <label>
              Seed <input type="number" min={0} step={1} value={seedText} onChange={(ev) => setSeedText(ev.target.value)} className="seed-input" />
            </label>
            <button type="submit">Run</button>
          </form>
          <label className="check">
            <input
              type="checkbox"
              checked={fencing}
              onChange={() => {
                setPendingFencing(!fencing);
                void toggleFencing(trace);
              }}
              data-testid="fencing-toggle"
            />{' '}
            Fencing
          </label>
          <button type="button" onClick={() => setForkOpen(true)} data-testid="fork-open">
            Fork from here…
          </button>
          <LinkButton />
          {/* The trace's files, together: a row too narrow for all three takes them to the next line as one, never the last alone. */}
          <span className="tool-group" role="group" aria-label="Trace file" data-testid="trace-file-tools">
            <FilePicker label="Open trace…" onFile={(f) => void loadTraceFile(f, 'primary')} testId="open-trace" />
            <button type="button" onClick={() => download(`${trace.doc.scenario.name}-seed${trace.doc.seed}.trace.json`, trace.text)}>
              Export trace
            </button>
            <button
              type="button"
              onClick={() => download(`${trace.doc.scenario.name}-seed${trace.doc.seed}.chrome.json`, serializeChromeTrace(trace.doc))}
              title="Chrome's trace-event format: open it in Perfetto (ui.perfetto.dev) or chrome://tracing"
              data-testid="export-chrome"
            >
              Export for Perfetto
            </button>
          </span>
        </div>
        {trace.doc.scenario.summary !== '' && (
          <p className="summary" data-testid="scenario-summary">
            {summaryParts(trace.doc.scenario.summary).map((part, i) =>
              typeof part === 'string' ? (
                <span key={i}>{part}</span>
              ) : (
                <button
                  key={i}
                  type="button"
                  className="small-button fix-button"
                  title="Run the same scenario with this setting"
                  onClick={() => {
                    const base = forkBase(trace);
                    void runPrimary({ ...base, overrides: withOverride(base.overrides, part.path, part.value) }, true);
                  }}
                >
                  try {part.path} = {part.value}
                </button>
              ),
            )}
          </p>
        )}
        {sweepLink !== undefined && (
          <p className="small sweep-link">
            <a href={sweepLink} data-testid="sweep-link">
              How often does it break? Sweep this scenario over many seeds in the Odds view
            </a>{' '}
            <span className="muted">(its faults are random: this run, seed {trace.doc.seed}, is one draw of them)</span>
          </p>
        )}
        <div className="lab-grid">
          <div className="lab-main">
            <Timeline trace={trace} fullDomain={fullDomainOf(trace.id, null)} primary title={trace.label} pair={pair} />
            <Legend traces={unfenced === null ? [trace] : [trace, unfenced]} />
            <Transport trace={trace} />
            <VerdictView trace={trace} />
            <ClientsCode trace={trace} />
            {unfenced !== null && <PairNote unfenced={unfenced} />}
            {unfenced === null && canPair(trace) && trace.doc.events.length > PAIR_AUTO_EVENTS && pairAsked !== trace.id && (
              <p className="pair-note">
                <button type="button" className="small-button" onClick={() => setPairAsked(trace.id)} data-testid="pair-ask">
                  Show the same run without fencing beside it
                </button>
              </p>
            )}
            <EventLog trace={trace} />
          </div>
          <SidePanel trace={trace} />
        </div>
        {narrow && <Summary trace={trace} />}
        <p className="muted small">
          {trace.doc.events.length} events · stop: {trace.doc.stop.reason} · sha256{' '}
          <span className="mono" data-testid="trace-hash">
            {trace.hash}
          </span>
        </p>
        <ForkDialog trace={trace} open={forkOpen} onClose={() => setForkOpen(false)} />
      </div>
    </>
  );
}
