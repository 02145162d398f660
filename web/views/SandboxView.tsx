import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { BUILTIN_NAMES } from '../../sim/scenarios/index.js';
import { download, FilePicker } from '../components/FilePicker.js';
import { Issues } from '../components/Issues.js';
import { PageHeading } from '../components/PageHeading.js';
import { VerdictView } from '../components/VerdictView.js';
import { buildLink, EMPTY_LINK, MAX_LINK_CHARS } from '../links/permalink.js';
import { checkDraft } from '../sandbox/checked.js';
import { ClientCard } from '../sandbox/ClientCard.js';
import { Confirm, type Ask } from '../sandbox/Confirm.js';
import { isDirty, isOwn, newClient, SEEN_BEFORE_RELOAD, useDraft } from '../sandbox/draft.js';
import { formPlace, formTtl } from '../sandbox/words.js';
import { FaultsEditor } from '../sandbox/FaultsEditor.js';
import { NumField, TextField } from '../sandbox/fields.js';
import { droppedWords, faultsForKind, importScenarioFile, loadDraft, sourceOf, switchStoreKind } from '../sandbox/load.js';
import { MachinesEditor } from '../sandbox/MachinesEditor.js';
import { StoreEditor } from '../sandbox/StoreEditor.js';
import { BLANK_SCENARIO } from '../sandbox/templates.js';
import { runOrigin, showPrimary } from '../state/session.js';
import { useTrace } from '../state/traces.js';
import { useUi } from '../state/ui.js';
import { fullDomainOf } from '../state/zoom.js';
import { Legend } from '../timeline/Legend.js';
import { Timeline } from '../timeline/Timeline.js';

export { importScenarioFile, loadDraft } from '../sandbox/load.js';

/**
 * Build a scenario from forms, run it in the worker, and see the verdict and
 * the timeline. The form opens on what the lab shows (so a link to the
 * Sandbox opens its scenario), asks before dropping the user's changes, and
 * says when the result beside it no longer matches it.
 */
export function SandboxView() {
  const { draft, issues, update, lastTraceId, ran, from } = useDraft();
  const dirty = useDraft(isDirty);
  const trace = useTrace(lastTraceId);
  const primaryId = useUi((s) => s.primaryId);
  const primary = useTrace(primaryId);
  const [share, setShare] = useState('');
  const [start, setStart] = useState(BUILTIN_NAMES[0] ?? 'pause-past-expiry');
  const [ask, setAsk] = useState<Ask | null>(null);

  /**
   * Does something that replaces the form, asking first when it holds changes:
   * `what` names it as it happens ("Loading flock-across-servers"), `yes` as the
   * button that does it anyway ("Load flock-across-servers anyway").
   */
  const replacing = (what: string, yes: string, run: () => void) => {
    if (!isDirty(useDraft.getState())) run();
    else setAsk({ message: `${what} replaces the scenario in the form, and your changes to it are lost.`, yes, run });
  };

  /*
   * Open on what the lab shows: the link's scenario (with its overrides), or the trace on screen. Only a trace
   * the form has not yet seen: coming back from another view (the Lab, a lesson) keeps what the form holds.
   * A scenario the lab has nowhere else (changed, imported, run here) is replaced only if the user says so.
   */
  useEffect(() => {
    const d = useDraft.getState();
    if (primary === null || primary.id === lastTraceId || (d.draft !== null && primary.id === d.seen)) return;
    useDraft.setState({ seen: primary.id });
    // A reload brought the form back as it was: the trace the address carries is the one it had already seen.
    if (d.seen === SEEN_BEFORE_RELOAD) return;
    const src = sourceOf(primary);
    if (d.from === src.from) return;
    const open = () => void loadDraft(src.input, src.from, src.overrides, true);
    if (d.draft === null || !isOwn(d)) open();
    else if (isDirty(d)) replacing(`Opening ${primary.label}`, `Open ${primary.label} anyway`, open);
    else
      setAsk({
        message: `The lab now shows ${primary.label}. Opening it here replaces ${d.draft.name}, the scenario in the form.`,
        yes: `Open ${primary.label}`,
        no: `Keep ${d.draft.name}`,
        run: open,
      });
  }, [primary, lastTraceId]);
  useEffect(() => {
    if (useDraft.getState().draft === null && useUi.getState().primaryId === null) void loadDraft({ builtin: start }, `builtin:${start}|`, [], true);
  }, []);
  // "Start from" names the built-in the form was loaded from, so it never names another scenario than the one shown;
  // for a blank scenario, a file or a link it says so until the user picks a built-in.
  // (A run of the form's own scenario marks it as that run's trace: the form still holds what it was loaded from.)
  useEffect(() => {
    if (lastTraceId !== null && from === `trace:${lastTraceId}`) return;
    const name = /^builtin:([^|]+)\|/.exec(from)?.[1];
    setStart(name !== undefined && BUILTIN_NAMES.includes(name) ? name : '');
  }, [from]);
  /*
   * A Remove button goes with what it removes (the last fault, machine or
   * client), or is disabled when one is left: the focus would fall to the
   * page's body. It goes instead to the first control after it in the form
   * that is still there ("New fault", "Add a machine", "Add a client"), as a
   * list's next item takes the place of one deleted.
   */
  const focusWas = useRef<{ el: HTMLElement; after: HTMLElement[] } | null>(null);
  useEffect(() => {
    const was = focusWas.current;
    if (was === null || (was.el.isConnected && !(was.el as HTMLButtonElement).disabled)) return;
    // A disabled button keeps the focus until the browser next draws, then drops it.
    const at = document.activeElement;
    if (at !== null && at !== document.body && at !== was.el) return;
    was.after.find((e) => e.isConnected && !(e as HTMLButtonElement).disabled)?.focus();
  }, [draft]);

  // In one column the result is under the whole form: bring it into view when a run lands there.
  const resultRef = useRef<HTMLElement>(null);
  useEffect(() => {
    const el = resultRef.current;
    if (el === null || lastTraceId === null) return;
    const oneColumn = el.getBoundingClientRect().left < (el.parentElement?.getBoundingClientRect().left ?? 0) + 40;
    if (oneColumn && el.getBoundingClientRect().top > window.innerHeight * 0.5) el.scrollIntoView({ block: 'start' });
  }, [lastTraceId]);

  // The cards get only what they show, each keeping its identity while it is unchanged, so an edit draws only the card it changed.
  const machines = useMemo(() => draft?.machines.map((m) => m.name) ?? [], [draft?.machines]);
  const removeClient = useCallback((i: number) => {
    const d = useDraft.getState().draft;
    const c = d?.clients[i];
    if (d === null || c === undefined) return;
    const aimed = d.faults.filter((f) => 'target' in f && f.target === c.name);
    const drop = () =>
      useDraft.getState().update([], {
        ...d,
        clients: d.clients.filter((_, k) => k !== i),
        faults: d.faults.filter((f) => !aimed.includes(f)),
      });
    if (aimed.length === 0) drop();
    else
      setAsk({
        message: `Removing ${c.name} also removes the faults aimed at it: ${droppedWords(aimed)}.`,
        yes: `Remove ${c.name} and ${aimed.length === 1 ? 'its fault' : 'its faults'}`,
        run: drop,
      });
  }, []);
  // Each client's PHP is written from the form's scenario checked once, after the browser has drawn the edit.
  useEffect(() => {
    if (draft !== null) checkDraft(draft);
  }, [draft]);

  // The heading stays one element while the form loads, so the focus a new page gives it is not lost when the form arrives.
  const heading = <PageHeading text={draft === null ? 'Sandbox' : `Sandbox: ${draft.name}`} hidden />;
  if (draft === null)
    return (
      <>
        {heading}
        <p>Loading the scenario editor…</p>
      </>
    );
  const up = (path: (string | number)[], v: unknown) => update(path, v);
  const stale = trace !== null && ran !== draft;

  const run = async () => {
    useDraft.getState().setIssues(null);
    const t = await runOrigin({ kind: 'scenario', raw: draft, seed: draft.seed, overrides: [] }, `${draft.name} (sandbox)`);
    if (t !== null) {
      // The sandbox's run becomes the lab's current trace, so the playhead, the link and "Open in the Lab" all follow it.
      useDraft.getState().markRun(t.id);
      showPrimary(t);
    } else {
      const n = useUi.getState().notice;
      if (n !== null) useDraft.getState().setIssues({ source: n.source, issues: n.issues, form: draft });
      useUi.getState().set({ notice: null });
    }
  };

  const changeKind = (kind: string) => {
    const { dropped } = faultsForKind(draft, kind);
    if (dropped.length === 0) void switchStoreKind(draft, kind);
    else
      setAsk({
        message: `The ${kind} store does not know ${dropped.length === 1 ? 'this fault' : 'these faults'}: ${droppedWords(dropped)}. Switching drops ${dropped.length === 1 ? 'it' : 'them'}; every other setting and fault stays.`,
        yes: `Switch to ${kind} and drop ${dropped.length === 1 ? 'it' : 'them'}`,
        run: () => void switchStoreKind(draft, kind),
      });
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
    <>
      {heading}
      <div className="sandbox">
        <div className="toolbar" role="group" aria-label="Sandbox actions">
          <label>
            Start from{' '}
            <select value={start} onChange={(ev) => setStart(ev.target.value)} data-testid="sandbox-start">
              {start === '' && (
                <option value="" disabled>
                  {from === 'blank'
                    ? '(a blank scenario)'
                    : from.startsWith('file:')
                      ? `(imported from ${from.slice('file:'.length)})`
                      : '(not a built-in: pick one to load)'}
                </option>
              )}
              {BUILTIN_NAMES.map((n) => (
                <option key={n}>{n}</option>
              ))}
            </select>
          </label>
          <button
            type="button"
            disabled={start === ''}
            onClick={() => replacing(`Loading ${start}`, `Load ${start} anyway`, () => void loadDraft({ builtin: start }, `builtin:${start}|`))}
          >
            Load
          </button>
          <button
            type="button"
            onClick={() =>
              replacing(
                'Starting a blank scenario',
                'Start a blank scenario anyway',
                () => void loadDraft({ raw: BLANK_SCENARIO, sourceName: 'blank scenario' }, 'blank'),
              )
            }
          >
            Blank scenario
          </button>
          <FilePicker
            label="Import scenario…"
            onFile={(f) => replacing(`Importing ${f.name}`, `Import ${f.name} anyway`, () => void importScenarioFile(f))}
            testId="import-scenario"
          />
          <button type="button" onClick={() => download(`${draft.name}.json`, `${JSON.stringify(draft, null, 2)}\n`)}>
            Export scenario
          </button>
          <button type="button" onClick={() => void shareLink()}>
            Share as link
          </button>
          <button
            type="button"
            onClick={() =>
              // The Odds view's modules (and the scenario checker its choices need) load with it, as the view itself does.
              void import('../odds/source.js').then(({ chooseScenario, SANDBOX }) => {
                chooseScenario(SANDBOX);
                useUi.getState().set({ view: 'odds' });
              })
            }
            data-testid="sandbox-odds"
          >
            Sweep it in Odds
          </button>
          <button type="button" className="primary" onClick={() => void run()} data-testid="sandbox-run">
            Run in the browser
          </button>
          <span className="muted small" data-testid="draft-state" data-from={from}>
            {dirty ? 'changed since loaded or run' : ''}
          </span>
        </div>
        {ask !== null && <Confirm ask={ask} close={() => setAsk(null)} />}
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
            <Issues
              source={issues.source}
              issues={issues.issues}
              what={issues.what}
              place={issues.form === undefined ? undefined : formPlace.bind(null, issues.form)}
            />
          </div>
        )}
        <div className="sandbox-grid">
          <form
            className="sandbox-form"
            onSubmit={(ev) => ev.preventDefault()}
            aria-label="Scenario"
            onFocus={(ev) => {
              const el = ev.target as HTMLElement;
              const all = focusablesIn(ev.currentTarget);
              focusWas.current = { el, after: all.slice(all.indexOf(el) + 1) };
            }}
          >
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
            <StoreEditor scenario={draft} update={up} changeKind={changeKind} />
            <FaultsEditor scenario={draft} update={up} trace={trace} />
            <MachinesEditor scenario={draft} update={up} />
            {draft.clients.map((c, i) => (
              <ClientCard key={i} client={c} index={i} machines={machines} alone={draft.clients.length <= 1} update={update} remove={removeClient} />
            ))}
            <button type="button" onClick={() => up(['clients'], [...draft.clients, newClient(draft)])}>
              Add a client
            </button>
          </form>
          <section className="sandbox-result" aria-labelledby="sandbox-result-title" ref={resultRef}>
            {/* For a screen reader's list of headings: the verdict is one jump from the page's h1; the form beside it is a landmark of its own. */}
            <h2 className="sr-only" id="sandbox-result-title">
              Result
            </h2>
            {trace === null || issues !== null ? (
              <p className="muted">
                {issues !== null
                  ? 'Fix the scenario and run it to see its verdict and timeline here.'
                  : 'Run the scenario to see its verdict and timeline here.'}
              </p>
            ) : (
              <div className={stale ? 'result-stale' : ''} data-testid="sandbox-result" data-stale={stale}>
                {stale && (
                  <p className="stale-note" role="status">
                    You have changed the scenario since this run: this is the result of the scenario as it was.{' '}
                    <button type="button" className="small-button" onClick={() => void run()}>
                      Run it again
                    </button>
                  </p>
                )}
                <VerdictView trace={trace} ttl={formTtl} />
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
                <Legend traces={[trace]} />
              </div>
            )}
          </section>
        </div>
      </div>
    </>
  );
}

/** The controls of the form Tab stops at, in order. */
function focusablesIn(form: HTMLElement): HTMLElement[] {
  return [...form.querySelectorAll<HTMLElement>('input, select, textarea, button, summary, [tabindex]:not([tabindex="-1"])')].filter(
    (e) => !(e as HTMLButtonElement).disabled,
  );
}
