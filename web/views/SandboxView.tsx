import { useEffect, useState } from 'react';
import type { Scenario } from '../../sim/scenario/types.js';
import { BUILTIN_NAMES } from '../../sim/scenarios/index.js';
import { download, FilePicker } from '../components/FilePicker.js';
import { VerdictView } from '../components/VerdictView.js';
import { buildLink, EMPTY_LINK, MAX_LINK_CHARS } from '../links/permalink.js';
import { ClientCard } from '../sandbox/ClientCard.js';
import { newClient, useDraft } from '../sandbox/draft.js';
import { StoreEditor } from '../sandbox/StoreEditor.js';
import { BLANK_SCENARIO } from '../sandbox/templates.js';
import { NumField, TextField } from '../sandbox/fields.js';
import { FaultsEditor } from '../sandbox/FaultsEditor.js';
import { MachinesEditor } from '../sandbox/MachinesEditor.js';
import { runOrigin, showPrimary } from '../state/session.js';
import { useTrace } from '../state/traces.js';
import { useUi } from '../state/ui.js';
import { Timeline } from '../timeline/Timeline.js';
import { fullDomainOf } from '../state/zoom.js';
import { sim, WorkerInputError } from '../worker/client.js';
import type { ScenarioInput } from '../worker/protocol.js';
import { starterStore } from '../../sim/stores/registry.js';

/** Loads a scenario (built-in or a user's document) into the form, with every default filled in by the worker. */
export async function loadDraft(input: ScenarioInput): Promise<boolean> {
  const d = useDraft.getState();
  try {
    d.setDraft((await sim().normalize(input)) as Scenario);
    return true;
  } catch (err) {
    if (err instanceof WorkerInputError) d.setIssues({ source: err.source, issues: err.issues });
    else d.setIssues({ source: 'sandbox', issues: [{ path: '', message: String(err) }] });
    return false;
  }
}

/**
 * Loads a scenario file into the form; a bad file's issues are listed beside
 * the form. The worker reads and parses the file, so a large one never
 * freezes the page, and every failure ends as a listed issue.
 */
export async function importScenarioFile(f: File): Promise<void> {
  await loadDraft({ file: f, sourceName: f.name });
}

/** Build a scenario from forms, run it in the worker, and see the verdict and the timeline. */
export function SandboxView() {
  const { draft, issues, update, lastTraceId } = useDraft();
  const trace = useTrace(lastTraceId);
  const [share, setShare] = useState('');
  const [start, setStart] = useState(BUILTIN_NAMES[0] ?? 'pause-past-expiry');

  useEffect(() => {
    if (useDraft.getState().draft === null) void loadDraft({ builtin: BUILTIN_NAMES[0] ?? 'pause-past-expiry' });
  }, []);

  if (draft === null) return <p>Loading the scenario editor…</p>;
  const up = (path: (string | number)[], v: unknown) => update(path, v);

  const run = async () => {
    useDraft.getState().setIssues(null);
    try {
      const t = await runOrigin({ kind: 'scenario', raw: draft, seed: draft.seed, overrides: [] }, `${draft.name} (sandbox)`);
      if (t !== null) {
        // The sandbox's run becomes the lab's current trace, so the playhead, the link and "Open in the Lab" all follow it.
        showPrimary(t);
        useDraft.setState({ lastTraceId: t.id });
      } else {
        const n = useUi.getState().notice;
        if (n !== null) useDraft.getState().setIssues({ source: n.source, issues: n.issues });
        useUi.getState().set({ notice: null });
      }
    } catch (err) {
      if (err instanceof WorkerInputError) useDraft.getState().setIssues({ source: err.source, issues: err.issues });
    }
  };

  const shareLink = async () => {
    const hash = await buildLink({ ...EMPTY_LINK, view: 'lab', scenario: { raw: draft }, seed: draft.seed });
    if (hash.length > MAX_LINK_CHARS)
      setShare(`This scenario makes a ${hash.length}-character link, over the ${MAX_LINK_CHARS} the lab accepts; export it as a file instead.`);
    else {
      const url = `${location.origin}${location.pathname}${hash}`;
      setShare(url);
      void navigator.clipboard?.writeText(url).catch(() => undefined);
    }
  };

  return (
    <div className="sandbox">
      <div className="toolbar" role="group" aria-label="Sandbox actions">
        <label>
          Start from{' '}
          <select value={start} onChange={(ev) => setStart(ev.target.value)}>
            {BUILTIN_NAMES.map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => void loadDraft({ builtin: start })}>
          Load
        </button>
        <button type="button" onClick={() => void loadDraft({ raw: BLANK_SCENARIO, sourceName: 'blank scenario' })}>
          Blank scenario
        </button>
        <FilePicker label="Import scenario…" onFile={(f) => void importScenarioFile(f)} testId="import-scenario" />
        <button type="button" onClick={() => download(`${draft.name}.json`, `${JSON.stringify(draft, null, 2)}\n`)}>
          Export scenario
        </button>
        <button type="button" onClick={() => void shareLink()}>
          Share as link
        </button>
        <button type="button" className="primary" onClick={() => void run()} data-testid="sandbox-run">
          Run in the browser
        </button>
      </div>
      {share !== '' && (
        <p className="share-line">
          <span className="muted">Link: </span>
          <output className="mono break" data-testid="sandbox-link">
            {share}
          </output>
        </p>
      )}
      {issues !== null && (
        <div className="notice notice-error" role="alert" data-testid="sandbox-issues">
          <strong>The scenario is not valid:</strong>
          <ul className="issues">
            {issues.issues.map((i, k) => (
              <li key={k}>
                <code>{i.path === '' ? issues.source : `${issues.source}: ${i.path}`}</code> {i.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      <div className="sandbox-grid">
        <form className="sandbox-form" onSubmit={(ev) => ev.preventDefault()} aria-label="Scenario">
          <fieldset className="card">
            <legend>Scenario</legend>
            <div className="fields">
              <TextField label="Name" value={draft.name} onChange={(v) => up(['name'], v)} />
              <TextField label="Summary" value={draft.summary} onChange={(v) => up(['summary'], v)} />
              <NumField label="Seed" value={draft.seed} step="1" min={0} onChange={(v) => up(['seed'], v)} />
              <NumField label="Stop after (ms of true time)" value={draft.budget.maxTimeMs} onChange={(v) => up(['budget', 'maxTimeMs'], v)} />
              <NumField label="Stop after (events)" value={draft.budget.maxEvents} step="1" onChange={(v) => up(['budget', 'maxEvents'], v)} />
            </div>
          </fieldset>
          <StoreEditor
            scenario={draft}
            update={up}
            changeKind={(kind) => {
              // A new store kind has its own settings: start from its minimal valid form; the worker fills in its defaults.
              const machines = draft.machines.map((m) => m.name);
              void loadDraft({ raw: { ...draft, store: starterStore(kind, machines), faults: [] }, sourceName: 'sandbox' });
            }}
          />
          <MachinesEditor scenario={draft} update={up} />
          {draft.clients.map((c, i) => (
            <ClientCard
              key={i}
              client={c}
              index={i}
              scenario={draft}
              update={up}
              remove={() =>
                up(
                  ['clients'],
                  draft.clients.filter((_, k) => k !== i),
                )
              }
            />
          ))}
          <button type="button" onClick={() => up(['clients'], [...draft.clients, newClient(draft)])}>
            Add a client
          </button>
          <FaultsEditor scenario={draft} update={up} />
        </form>
        <section className="sandbox-result" aria-label="Result">
          {trace === null ? (
            <p className="muted">Run the scenario to see its verdict and timeline here.</p>
          ) : (
            <>
              <VerdictView verdict={trace.doc.verdict} />
              <p className="muted small">
                {trace.doc.events.length} events, simulated in {trace.workMs.toFixed(0)} ms · trace sha256{' '}
                <span className="mono">{trace.hash.slice(0, 16)}…</span>
              </p>
              <button
                type="button"
                onClick={() => {
                  if (useUi.getState().primaryId !== trace.id) showPrimary(trace);
                  useUi.getState().set({ view: 'lab' });
                }}
              >
                Open in the Lab to step through it
              </button>
              <Timeline trace={trace} fullDomain={fullDomainOf(trace.id, null)} primary={useUi.getState().primaryId === trace.id} title={trace.label} />
            </>
          )}
        </section>
      </div>
    </div>
  );
}
