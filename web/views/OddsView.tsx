import { useEffect, useMemo, useState } from 'react';
import { InputError } from '../../sim/errors.js';
import { MAX_LAB_RUNS } from '../../sim/odds/lab.js';
import { defaultBatchSize, planSweep } from '../../sim/odds/plan.js';
import { parseSeedRange, type Vary } from '../../sim/odds/range.js';
import { formatCycles, formatShare, reportCsv, reportJson, runs as runsOf, sweepReport } from '../../sim/odds/report.js';
import { grouped } from '../../sim/scenario/limits.js';
import { sweepLeaseNotes } from '../../sim/scenario/short-lease.js';
import type { Scenario } from '../../sim/scenario/types.js';
import { BUILTIN_NAMES } from '../../sim/scenarios/index.js';
import { sweepCommand as sweepCommandOf } from '../../sim/reproduce.js';
import { formatDuration } from '../../sim/time.js';
import { download } from '../components/FilePicker.js';
import { OddsPlot, METRICS, type MetricKey } from '../odds/OddsPlot.js';
import { readVary, sweepErrorText } from '../odds/form-errors.js';
import { OddsTable } from '../odds/OddsTable.js';
import { paramChoices, showParam, type ParamChoice } from '../odds/params.js';
import { browserCores, OddsSweep, releaseWorkers, shrinkInWorker, warmWorkers, type SweepProgress } from '../odds/pool.js';
import { latestEvery } from '../odds/redraw.js';
import { choicesOf, chooseScenario, downloadStem, exportFileName, pointOrigin, SANDBOX, specFor, sweptOf, type Swept } from '../odds/source.js';
import { useOdds } from '../odds/store.js';
import { useDraft } from '../sandbox/draft.js';
import { PageHeading } from '../components/PageHeading.js';
import { runOrigin, showPrimary } from '../state/session.js';
import { useUi } from '../state/ui.js';
import '../odds/odds.css';

/** How often a running sweep's plot and table are redrawn, at most (ms). */
const REDRAW_MS = 250;

/** The value at a path of the choices offered, if it is one of them. */
function valueAt(choices: readonly ParamChoice[], path: string): unknown {
  return choices.find((c) => c.path === path)?.value;
}

/** The command that runs the sweep the form describes: --vary takes the values as the form does. */
function sweepCommand(f: { ref: string; path1: string; spec1: string; path2: string; spec2: string }, runs: number): string {
  const vary = [
    [f.path1, f.spec1],
    [f.path2, f.spec2],
  ].flatMap(([path = '', spec = '']) => (path.trim() === '' ? [] : [`${path.trim()}=${spec.trim()}`]));
  return `npx ${sweepCommandOf(f.ref, { runs, vary })}`;
}

let current: OddsSweep | null = null;
/** Whether the Odds view is on screen: a sweep that ends after it closed lets its workers go. */
let viewOpen = false;

async function startSweep(): Promise<void> {
  const odds = useOdds.getState();
  const f = odds.form;
  let choices: ParamChoice[] = [];
  let plan;
  let swept: Swept;
  try {
    swept = sweptOf(f.scenario);
    const base = swept.base;
    choices = paramChoices(base);
    const varies: Vary[] = [readVary(choices, f.path1, f.spec1)];
    if (f.path2.trim() !== '') varies.push(readVary(choices, f.path2, f.spec2));
    const runs = Number(f.runs);
    if (!Number.isInteger(runs) || runs < 1)
      throw new InputError('runs per point', [{ path: '', message: `expected a whole number above zero, got ${JSON.stringify(f.runs)}` }]);
    const points = varies.reduce((n, v) => n * v.values.length, 1);
    if (runs * points > MAX_LAB_RUNS)
      throw new InputError('sweep', [
        {
          path: '',
          message: `${grouped(points)} points × ${grouped(runs)} runs is ${grouped(runs * points)} runs, more than the lab takes (${grouped(MAX_LAB_RUNS)}); the same sweep from a terminal, on every core: ${sweepCommand({ ...f, ref: swept.ref }, runs)}${swept.sandbox ? `, with the scenario exported from the Sandbox as ${swept.ref}` : ''}`,
        },
      ]);
    const threads = browserCores();
    plan = planSweep({
      scenarioRef: swept.ref,
      base,
      sets: [],
      varies,
      seeds: parseSeedRange(`1..${runs}`, 'runs per point'),
      codeVersion: 'lab',
      batchSize: defaultBatchSize(runs, points, threads),
    });
    odds.set({ threads });
  } catch (err) {
    // The plot, table and status of the sweep before would read as this sweep's answer under the error: they go with it.
    odds.set({ error: sweepErrorText(err, choices), report: null, plan: null, swept: null, selected: null, elapsedMs: 0 });
    return;
  }
  const sweep = new OddsSweep(useOdds.getState().threads);
  current = sweep;
  odds.set({ running: true, plan, swept, report: null, selected: null, error: null, elapsedMs: 0 });
  // The plot and the table are redrawn a few times a second, however fast counts arrive: drawn at every frame, they took a core's worth of time from the workers.
  const redraw = latestEvery<SweepProgress>(REDRAW_MS, (p) => {
    if (current === sweep) useOdds.getState().set({ report: sweepReport(p.agg, plan.combinations[0]!.scenario.name), elapsedMs: p.elapsedMs });
  });
  try {
    const done = await sweep.run(plan, (p) => redraw.push(p));
    if (current === sweep) useOdds.getState().set({ report: sweepReport(done.agg, plan.combinations[0]!.scenario.name), elapsedMs: done.elapsedMs });
    performance.mark('locklab:odds-done');
  } catch (err) {
    if (current === sweep) useOdds.getState().set({ error: String((err as Error).message ?? err) });
  } finally {
    redraw.cancel();
    if (current === sweep) {
      useOdds.getState().set({ running: false });
      current = null;
      if (!viewOpen) releaseWorkers();
    }
  }
}

function stopSweep(): void {
  const s = current;
  current = null;
  s?.stop();
  const odds = useOdds.getState();
  odds.set({ running: false, report: odds.report === null ? null : { ...odds.report, partial: true } });
}

/** Opens one run of a combination on the Lab's timeline: the very run the sweep counted. */
async function openRun(swept: Swept, sets: readonly string[], seed: number): Promise<void> {
  const t = await runOrigin(pointOrigin(swept, sets, seed));
  if (t === null) return;
  showPrimary(t);
  useUi.getState().set({ view: 'lab' });
}

/** Shrinks a failing run and shows it beside the original in Compare. */
async function openSmallest(swept: Swept, sets: readonly string[], scenario: Scenario, seed: number): Promise<void> {
  const name = swept.base.name;
  useOdds.getState().set({ shrinking: true, error: null });
  try {
    const small = await shrinkInWorker(scenario, seed);
    const original = await runOrigin(pointOrigin(swept, sets, seed));
    const smallest = await runOrigin({ kind: 'scenario', raw: small.scenario, seed, overrides: [] }, `smallest run that breaks ${name} · seed ${seed}`);
    if (original === null || smallest === null) return;
    showPrimary(original);
    useUi.getState().set({
      secondaryId: smallest.id,
      secondaryNote: `smallest run that breaks it: ${small.changes.length === 0 ? 'nothing could be removed' : small.changes.join('; ')}`,
      view: 'compare',
    });
  } catch (err) {
    useOdds.getState().set({ error: String((err as Error).message ?? err) });
  } finally {
    useOdds.getState().set({ shrinking: false });
  }
}

function ParamPicker(props: {
  label: string;
  choices: readonly ParamChoice[];
  path: string;
  spec: string;
  optional: boolean;
  onChange(path: string, spec: string): void;
}) {
  const known = props.choices.some((c) => c.path === props.path);
  const [custom, setCustom] = useState(!known && props.path !== '');
  const id = props.label.replace(/\W+/g, '-').toLowerCase();
  return (
    <fieldset className="card odds-param">
      <legend>{props.label}</legend>
      <div className="fields">
        <label className="field" htmlFor={`${id}-path`}>
          Parameter
          <select
            id={`${id}-path`}
            value={custom ? '*' : props.path}
            onChange={(ev) => {
              const v = ev.target.value;
              if (v === '*') {
                setCustom(true);
                return;
              }
              setCustom(false);
              props.onChange(v, v === '' ? props.spec : specFor(props.choices.find((c) => c.path === v)));
            }}
            data-testid={`${id}-select`}
          >
            {props.optional && <option value="">none</option>}
            {props.choices.map((c) => (
              <option key={c.path} value={c.path}>
                {c.label}
              </option>
            ))}
            <option value="*">another path…</option>
          </select>
        </label>
        {custom && (
          <label className="field">
            Path
            <input
              value={props.path}
              onChange={(ev) => props.onChange(ev.target.value, props.spec)}
              placeholder="clients.A.ttlMs"
              spellCheck={false}
              className="mono"
            />
          </label>
        )}
        {(props.path !== '' || custom) && (
          <label className="field">
            Values <span className="muted small">from..to:step, or a list a,b</span>
            <input
              value={props.spec}
              onChange={(ev) => props.onChange(props.path, ev.target.value)}
              spellCheck={false}
              className="mono"
              data-testid={`${id}-spec`}
            />
          </label>
        )}
      </div>
    </fieldset>
  );
}

function PointDetails({ swept, labels }: { swept: Swept; labels: ReadonlyMap<string, string> }) {
  const report = useOdds((s) => s.report);
  const plan = useOdds((s) => s.plan);
  const selected = useOdds((s) => s.selected);
  const shrinking = useOdds((s) => s.shrinking);
  if (report === null || plan === null || selected === null) return null;
  const c = report.combinations[selected];
  const combo = plan.combinations[selected];
  if (c === undefined || combo === undefined) return null;
  const firstUnsafe = c.failing.find((f) => f.outcome === 'unsafe');
  const rows: Array<[string, string]> = [
    ['stale write accepted (unsafe)', formatShare(c.unsafe)],
    ['double ownership', formatShare(c.doubleOwnership)],
    ['double-owned lock cycles', formatCycles(c.doubleOwnedCycles)],
    ['fenced (every stale write refused)', formatShare(c.fenced)],
    ['lost a lock', formatShare(c.lostLock)],
    ['locked out for nothing', `${formatShare(c.lockout)}, ${formatDuration(c.lockoutMeanUs)} a run on average`],
  ];
  return (
    <section className="odds-details card" aria-labelledby="odds-details-title" data-testid="odds-details">
      <h2 id="odds-details-title">
        {Object.entries(c.params)
          .map(([k, v]) => `${labels.get(k) ?? k} = ${showParam(v)}`)
          .join(', ')}{' '}
        <span className="muted small">· {runsOf(c.runs)}</span>
      </h2>
      <table className="odds-shares">
        <tbody>
          {rows.map(([k, v]) => (
            <tr key={k}>
              <th scope="row">{k}</th>
              <td className="mono">{v}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {c.failing.length === 0 ? (
        <p className="muted">No run at this point had double ownership or an accepted stale write.</p>
      ) : (
        <>
          <p className="small">Failing runs (the smallest seeds):</p>
          <ul className="odds-failing">
            {c.failing.map((f) => (
              <li key={f.seed}>
                <button type="button" onClick={() => void openRun(swept, combo.sets, f.seed)} data-testid="odds-open-run">
                  Open seed {f.seed} on the timeline
                </button>{' '}
                <span className="muted small">{f.outcome === 'unsafe' ? 'stale write accepted' : 'double ownership'}</span>
                <code className="odds-command">{f.command}</code>
              </li>
            ))}
          </ul>
          {firstUnsafe !== undefined && (
            <button
              type="button"
              onClick={() => void openSmallest(swept, combo.sets, combo.scenario, firstUnsafe.seed)}
              disabled={shrinking}
              data-testid="odds-smallest"
            >
              {shrinking ? 'Shrinking…' : `Smallest run that breaks it (seed ${firstUnsafe.seed})`}
            </button>
          )}
        </>
      )}
    </section>
  );
}

/**
 * What a sweep of the Sandbox's scenario needs beyond the lab: the file a
 * terminal reads it from, and that this page's address does not hold it.
 */
function SandboxNote({ draft, command }: { draft: Scenario; command: string }) {
  return (
    <div className="notice notice-info small odds-note odds-sandbox" data-testid="odds-sandbox-note">
      <p>
        This is the scenario in the Sandbox, as it is now; a sweep runs it as it was when the sweep started. To run the same sweep from a terminal, use{' '}
        <strong>Export scenario</strong> in the Sandbox to save it as <code>{exportFileName(draft)}</code>, then:
      </p>
      <code className="odds-command" data-testid="odds-command">
        {command}
      </code>
      <p>
        This page’s address does not hold the Sandbox’s scenario: to share it, use <strong>Share as link</strong> in the Sandbox, or send the exported file.
      </p>
    </div>
  );
}

/** Odds: how often a scenario breaks as a parameter changes, swept over many seeds in Web Workers. */
export function OddsView() {
  const form = useOdds((s) => s.form);
  const running = useOdds((s) => s.running);
  const report = useOdds((s) => s.report);
  const plan = useOdds((s) => s.plan);
  const error = useOdds((s) => s.error);
  const elapsedMs = useOdds((s) => s.elapsedMs);
  const threads = useOdds((s) => s.threads);
  const selected = useOdds((s) => s.selected);
  const setForm = useOdds((s) => s.setForm);
  const [metrics, setMetrics] = useState<MetricKey[]>(['doubleOwnership', 'unsafe']);
  const swept = useOdds((s) => s.swept);
  // The Sandbox's scenario is offered while the Sandbox has one, and its parameters follow the user's edits there.
  const draft = useDraft((s) => s.draft);
  const sandboxDraft = form.scenario === SANDBOX ? draft : null;
  const { choices, problem } = useMemo(() => choicesOf(form.scenario), [form.scenario, sandboxDraft]);
  const total = plan === null ? 0 : plan.batches.reduce((n, b) => n + b.to - b.from + 1, 0);
  const reportChoices = useMemo(() => (swept === null ? [] : paramChoices(swept.base)), [swept]);
  const chosen = report === null ? undefined : valueAt(reportChoices, report.vary[0]!.path);
  const axisLabel = report === null ? '' : (reportChoices.find((c) => c.path === report.vary[0]!.path)?.label ?? report.vary[0]!.path);
  const labels = new Map(reportChoices.map((c) => [c.path, c.label]));
  const stem = swept === null ? (report?.scenario ?? '') : downloadStem(swept);
  // A lease shorter than the work it covers breaks every cycle, most often a TTL in seconds: said beside the odds it skews, once per lease.
  const leaseNotes = useMemo(() => (plan === null ? [] : sweepLeaseNotes(plan.combinations.map((cb) => cb.scenario))), [plan]);
  // A point on the plot and a value in the table select the same way.
  const select = (i: number) => useOdds.getState().set({ selected: i });
  // The workers load while the form is filled in, and stay for the next sweep while the view is open.
  useEffect(() => {
    viewOpen = true;
    warmWorkers();
    return () => {
      viewOpen = false;
      if (current === null) releaseWorkers();
    };
  }, []);

  return (
    <section className="odds" aria-labelledby="odds-title">
      <PageHeading text="Odds" id="odds-title" />
      <p className="odds-intro">
        How often does it break? Pick a parameter and a range: every value is run with many seeds, and the plot shows the share of runs in which two clients
        both owned the lock, and in which the resource accepted a stale write (fencing refuses most of them). A run is the whole scenario, every lock cycle of
        every client, and counts once however often it broke. The table also gives the share of all lock cycles (jobs) that were double-owned, which can be
        plotted too. The band around each line is its 95 % confidence interval. Click a point to open one of its failing runs.
      </p>
      <form
        className="odds-form"
        onSubmit={(ev) => {
          ev.preventDefault();
          if (running) stopSweep();
          else {
            void startSweep();
          }
        }}
      >
        <fieldset className="card odds-param">
          <legend>Scenario</legend>
          <div className="fields">
            <label className="field">
              Scenario
              <select value={form.scenario} onChange={(ev) => chooseScenario(ev.target.value)} data-testid="odds-scenario">
                {draft !== null && <option value={SANDBOX}>{`${draft.name} (Sandbox)`}</option>}
                {BUILTIN_NAMES.map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </select>
            </label>
            <label className="field">
              Runs per point
              <input type="number" min={1} step={1} value={form.runs} onChange={(ev) => setForm({ runs: ev.target.value })} data-testid="odds-runs" />
            </label>
          </div>
        </fieldset>
        {form.scenario === SANDBOX && draft !== null && (
          <SandboxNote draft={draft} command={sweepCommand({ ...form, ref: exportFileName(draft) }, Number(form.runs) || 1)} />
        )}
        {/* Said once: a sweep started anyway reports the same problem. */}
        {problem !== null && problem !== error && (
          <p className="odds-error" role="alert">
            {problem}
          </p>
        )}
        <ParamPicker
          label="Vary"
          choices={choices}
          path={form.path1}
          spec={form.spec1}
          optional={false}
          onChange={(path1, spec1) => setForm({ path1, spec1 })}
        />
        <ParamPicker
          label="And, optionally, a second parameter"
          choices={choices}
          path={form.path2}
          spec={form.spec2}
          optional
          onChange={(path2, spec2) => setForm({ path2, spec2 })}
        />
        <div className="odds-actions">
          <button type="submit" className="primary" data-testid="odds-run">
            {running ? 'Stop' : 'Run sweep'}
          </button>
          <span className="odds-status" role="status" aria-live="polite" data-testid="odds-status">
            {report !== null &&
              `${report.runs.toLocaleString('en-US')} of ${runsOf(total)} · ${(elapsedMs / 1000).toFixed(1)} s · ${
                elapsedMs > 0 ? Math.round((report.runs / elapsedMs) * 1000).toLocaleString('en-US') : '–'
              } runs/s on ${threads} worker${threads === 1 ? '' : 's'}${running ? '…' : report.partial ? ' · stopped early' : ' · done'}`}
          </span>
        </div>
        {error !== null && (
          <p className="odds-error" role="alert">
            {error}
          </p>
        )}
        {leaseNotes.map((note) => (
          <p key={note} className="notice small odds-note" data-testid="short-lease">
            {note}
          </p>
        ))}
      </form>

      {report !== null && (
        <>
          <div className="odds-toolbar" role="group" aria-label="What to plot">
            {METRICS.map((m) => (
              <label key={m.key} className="check">
                <input
                  type="checkbox"
                  checked={metrics.includes(m.key)}
                  onChange={() => setMetrics(metrics.includes(m.key) ? metrics.filter((k) => k !== m.key) : [...metrics, m.key])}
                />{' '}
                {m.label}
              </label>
            ))}
            <span className="spacer" />
            <button type="button" onClick={() => download(`${stem}-odds.csv`, reportCsv(report))}>
              Download CSV
            </button>
            <button type="button" onClick={() => download(`${stem}-odds.json`, reportJson(report))}>
              Download JSON
            </button>
          </div>
          <OddsPlot report={report} metrics={metrics} chosen={chosen} selected={selected} axisLabel={axisLabel} labels={labels} onSelect={select} />
          <OddsTable report={report} labels={labels} selected={selected} onSelect={select} />
          {selected === null && <p className="muted small">Click or tab to a point, or a value in the table, for its figures and failing runs.</p>}
          {swept !== null && <PointDetails swept={swept} labels={labels} />}
        </>
      )}
    </section>
  );
}

export default OddsView;
