import { useEffect, useRef, useState } from 'react';
import { attemptRef, changesOf, valueAt, type Attempt } from '../../sim/lessons/attempt.js';
import type { Checked } from '../../sim/lessons/expect.js';
import type { Challenge, Json, Knob, Lesson } from '../../sim/lessons/types.js';
import type { Scenario } from '../../sim/scenario/types.js';
import { ATTEMPT_AND_ORIGINAL } from '../components/ClientsCode.js';
import { sim } from '../worker/client.js';
import type { Verdict } from '../../sim/check/verdict.js';
import { useUi } from '../state/ui.js';
import { useProgress } from './progress.js';
import { FIELD_LABELS, solutionText } from './solution-text.js';
import { judgeTrace, runRef, stage, useStage, verdictOf } from './stage.js';
import { Stage } from './Stage.js';

export const challengeAnchor = (id: string): string => `challenge-${id}`;

const KIND: Readonly<Record<Challenge['type'], string>> = { break: 'Break it', fix: 'Fix it', cheapest: 'Cheapest fix' };

interface Result {
  readonly solved: boolean;
  readonly changes: number;
  readonly perSeed: readonly { seed: number; checked: Checked[]; verdict: Verdict }[];
}

/**
 * A goal checked by the checker on the learner's own run: they change the
 * knobs the challenge allows, run their attempt (a fork of the scenario),
 * and see it beside the original, with the statements that proved it or
 * the ones that did not hold. Hints come one at a time.
 */
export function ChallengeEmbed({ lesson, challenge }: { lesson: Lesson; challenge: Challenge }) {
  const owner = `challenge:${challenge.id}`;
  const owns = useStage((s) => s.owner === owner);
  const solvedBefore = useProgress((s) => (s.solved[lesson.id] ?? []).includes(challenge.id));
  const scenario = lesson.scenarios[challenge.scenario]!;
  // The scenario with its defaults, from the worker, so each knob starts at the value the run really has.
  const [base, setBase] = useState<Scenario | null>(null);
  useEffect(() => {
    void sim()
      .normalize({ raw: scenario.raw, sourceName: scenario.file })
      .then((s) => setBase(s as Scenario));
  }, [scenario]);
  const [set, setSet] = useState<Record<string, Json>>({});
  const [fault, setFault] = useState<Attempt['fault']>(null);
  const [hints, setHints] = useState(0);
  const [showSolution, setShowSolution] = useState(false);
  const [result, setResult] = useState<Result | null>(null);
  const [running, setRunning] = useState(false);
  const seeds = challenge.seeds ?? [scenario.seed];

  const baseValue = (path: string): Json => (base === null ? null : ((valueAt(base, path) ?? null) as Json));
  const valueOf = (k: Knob): Json => (k.path !== undefined && k.path in set ? set[k.path]! : baseValue(k.path ?? ''));
  const change = (k: Knob, v: Json) => {
    const next = { ...set };
    if (JSON.stringify(v) === JSON.stringify(baseValue(k.path!))) delete next[k.path!];
    else next[k.path!] = v;
    setSet(next);
    setResult(null);
  };

  /*
   * "Run my attempt" is disabled while the attempt runs, which drops the
   * focus on the page's body, and the checker's answer appears below with
   * nothing said. Its verdict takes the focus when it comes, so a screen
   * reader reads it and Tab goes on from the challenge.
   */
  const verdictLine = useRef<HTMLParagraphElement | null>(null);
  const focusVerdict = useRef(false);
  useEffect(() => {
    if (result === null || !focusVerdict.current) return;
    focusVerdict.current = false;
    verdictLine.current?.focus();
  }, [result]);

  // A hint asked for takes the focus, so it is read out; the last one also disables its button, which would drop the focus on the page's body.
  const lastHint = useRef<HTMLLIElement | null>(null);
  const focusHint = useRef(false);
  useEffect(() => {
    if (!focusHint.current) return;
    focusHint.current = false;
    lastHint.current?.focus();
  }, [hints]);

  const run = async () => {
    focusVerdict.current = true;
    setRunning(true);
    try {
      const attempt: Attempt = { set, fault };
      const perSeed: { seed: number; checked: Checked[]; verdict: Verdict }[] = [];
      let first = null;
      for (const seed of seeds) {
        const t = await runRef(lesson, attemptRef(challenge, attempt), seed);
        if (t === null) return;
        first ??= t;
        perSeed.push({ seed, checked: judgeTrace(challenge.success, t).checked, verdict: verdictOf(t) });
      }
      const original = await runRef(lesson, { scenario: challenge.scenario }, seeds[0]);
      const changes = changesOf(challenge, attempt);
      const solved = perSeed.every((r) => r.checked.every((c) => c.ok)) && (challenge.maxChanges === undefined || changes <= challenge.maxChanges);
      setResult({ solved, changes, perSeed });
      if (solved) useProgress.getState().solve(lesson.id, challenge.id);
      if (first !== null) {
        stage(owner, first, original);
        // Open on the moment that decides it: where two clients first both believe, else the end.
        const v = verdictOf(first);
        const at = v.doubleOwnership[0]?.fromUs ?? v.staleWrites[0]?.timeUs;
        if (at === undefined) useUi.getState().seekSeq(first.doc.events.length - 1);
        else useUi.getState().seekTime(at);
      }
    } finally {
      setRunning(false);
    }
  };

  const faultKnob = challenge.knobs.find((k) => k.kind === 'fault');
  const option = fault === null ? undefined : faultKnob?.faults?.[fault.choice];

  return (
    <section className="embed challenge" id={challengeAnchor(challenge.id)} data-challenge={challenge.id} data-solved={solvedBefore}>
      <h3 className="embed-title">
        Challenge · {KIND[challenge.type]}: {challenge.title} {solvedBefore && <span className="chip chip-ok">✓ solved</span>}
      </h3>
      <p className="goal">{challenge.goal}</p>
      {challenge.maxChanges !== undefined && (
        <p className="muted small">
          Use at most {challenge.maxChanges} change{challenge.maxChanges === 1 ? '' : 's'}.
        </p>
      )}
      {seeds.length > 1 && <p className="muted small">Your attempt must pass with every seed: {seeds.join(', ')}.</p>}
      <div className="knobs" role="group" aria-label="What you may change">
        {challenge.knobs.map((k) =>
          k.kind === 'fault' ? (
            <div key={k.id} className="knob">
              <label>
                {k.label}{' '}
                <select
                  value={fault === null ? '' : String(fault.choice)}
                  onChange={(ev) => {
                    setFault(ev.target.value === '' ? null : { choice: Number(ev.target.value), fields: {} });
                    setResult(null);
                  }}
                  data-testid={`knob-${k.id}`}
                >
                  <option value="">no fault</option>
                  {k.faults!.map((f, i) => (
                    <option key={f.label} value={i}>
                      {f.label}
                    </option>
                  ))}
                </select>
              </label>
              {option !== undefined &&
                (option.edit ?? []).map((field) => (
                  <label key={field} className="knob-field">
                    {FIELD_LABELS[field] ?? field}{' '}
                    <input
                      type="number"
                      value={fault?.fields?.[field] ?? (option.fault as Record<string, number>)[field] ?? 0}
                      onChange={(ev) => {
                        setFault({ choice: fault!.choice, fields: { ...fault!.fields, [field]: Number(ev.target.value) } });
                        setResult(null);
                      }}
                      data-testid={`knob-${k.id}-${field}`}
                    />{' '}
                    ms
                  </label>
                ))}
            </div>
          ) : (
            <label key={k.id} className="knob">
              {k.kind === 'boolean' ? (
                <>
                  <input type="checkbox" checked={valueOf(k) === true} onChange={(ev) => change(k, ev.target.checked)} data-testid={`knob-${k.id}`} /> {k.label}
                </>
              ) : k.kind === 'choice' ? (
                <>
                  {k.label}{' '}
                  <select value={JSON.stringify(valueOf(k))} onChange={(ev) => change(k, JSON.parse(ev.target.value) as Json)} data-testid={`knob-${k.id}`}>
                    {k.choices!.map((c) => (
                      <option key={c.label} value={JSON.stringify(c.value)}>
                        {c.label}
                      </option>
                    ))}
                  </select>
                </>
              ) : (
                <>
                  {k.label}{' '}
                  <input
                    type="number"
                    min={k.min}
                    max={k.max}
                    step={k.step ?? 1}
                    value={typeof valueOf(k) === 'number' ? (valueOf(k) as number) : ''}
                    placeholder="not set"
                    onChange={(ev) => change(k, ev.target.value === '' ? null : Number(ev.target.value))}
                    data-testid={`knob-${k.id}`}
                  />{' '}
                  {k.unit ?? ''}
                </>
              )}
            </label>
          ),
        )}
      </div>
      <p className="challenge-actions">
        <button type="button" className="primary" onClick={() => void run()} disabled={running} data-testid={`run-${challenge.id}`}>
          {running ? 'Running…' : 'Run my attempt'}
        </button>
        <button
          type="button"
          onClick={() => {
            focusHint.current = true;
            setHints(Math.min(challenge.hints.length, hints + 1));
          }}
          disabled={hints >= challenge.hints.length}
        >
          {hints === 0 ? 'Give me a hint' : hints < challenge.hints.length ? `Another hint (${hints + 1} of ${challenge.hints.length})` : 'No more hints'}
        </button>
        <button
          type="button"
          onClick={() => setShowSolution(!showSolution)}
          aria-expanded={showSolution}
          // It names the panel only while the panel is there to name.
          {...(showSolution ? { 'aria-controls': `solution-${challenge.id}` } : {})}
          data-testid={`solution-toggle-${challenge.id}`}
        >
          {showSolution ? 'Hide the reference solution' : 'Show the reference solution'}
        </button>
      </p>
      {hints > 0 && (
        <ol className="hints" data-testid="hints">
          {challenge.hints.slice(0, hints).map((h, i) => (
            <li key={h} tabIndex={-1} ref={i === hints - 1 ? lastHint : undefined}>
              {h}
            </li>
          ))}
        </ol>
      )}
      {showSolution && (
        <div className="solution" id={`solution-${challenge.id}`} data-testid="solution">
          <p>
            <strong>Reference solution:</strong> {solutionText(challenge)}
          </p>
          <p>{challenge.explain}</p>
          <button
            type="button"
            onClick={() => {
              setSet({ ...(challenge.solution.set ?? {}) });
              setFault(challenge.solution.addFault ?? null);
              setResult(null);
            }}
          >
            Load it into the knobs
          </button>
        </div>
      )}
      {result !== null && (
        <div className={result.solved ? 'challenge-result solved' : 'challenge-result'} data-testid={`result-${challenge.id}`} data-solved={result.solved}>
          <p className="verdict-line" tabIndex={-1} ref={verdictLine}>
            {result.solved
              ? `✓ Solved. The checker proved it${result.perSeed.length > 1 ? ` on every seed (${seeds.join(', ')})` : ''}:`
              : challenge.maxChanges !== undefined && result.changes > challenge.maxChanges
                ? `✗ You made ${result.changes} changes; it can be done with ${challenge.maxChanges}.`
                : '✗ Not yet. What the checker found:'}
          </p>
          {result.perSeed.map((r) => (
            <div key={r.seed}>
              {result.perSeed.length > 1 && <p className="muted small">Seed {r.seed}:</p>}
              <ul className="checked">
                {r.checked.map((c) => (
                  <li key={c.statement} className={c.ok ? 'ok' : 'bad'}>
                    {c.ok ? '✓' : '✗'} {c.statement}
                    {c.ok ? '' : `, but ${c.found}`}
                  </li>
                ))}
              </ul>
            </div>
          ))}
          {result.solved && <p>{challenge.explain}</p>}
        </div>
      )}
      {owns && result !== null && <Stage title="Your attempt" compareTitle="The original run" runs={ATTEMPT_AND_ORIGINAL} />}
    </section>
  );
}
