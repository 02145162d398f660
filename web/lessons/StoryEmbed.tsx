import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { fillCaption } from '../../sim/lessons/caption.js';
import { optionOrder, storyAskKey } from '../../sim/lessons/option-order.js';
import { findEvent } from '../../sim/lessons/query.js';
import type { Json, Story } from '../../sim/lessons/types.js';
import { STORY_AND_REAL } from '../components/ClientsCode.js';
import { openRecording, recordingOf, recordingsOfStory, type Recording } from '../state/recorded.js';
import { useTrace, type LoadedTrace } from '../state/traces.js';
import { useUi } from '../state/ui.js';
import { Choices } from './Choices.js';
import { RealPanel, RealServersControl } from './RealServers.js';
import { useProgress } from './progress.js';
import { useLessonRoute } from './route.js';
import { shortText } from './short-text.js';
import { judgeTrace, runRef, stage, useStage } from './stage.js';
import { Stage } from './Stage.js';
import { stopsText } from './status.js';
import type { LabLesson } from './types.js';

export const stopAnchor = (story: string, stop: string): string => `stop-${story}-${stop}`;

/**
 * Puts the playhead on a stop's event, or, while the stop's question is
 * unanswered, on the event just before it, so the picture does not give the
 * answer away.
 */
function seekStop(lessonId: string, story: Story, i: number, seq: number): void {
  const stop = story.stops[i]!;
  const unanswered = stop.ask !== undefined && useProgress.getState().answers[lessonId]?.[storyAskKey(story.id, stop.id)] === undefined;
  useUi.getState().seekSeq(unanswered ? seq - 1 : seq);
}

/** The overrides in force at each stop: a stop's `set` carries on to the stops after it. */
function setsOf(story: Story): Record<string, Json>[] {
  let set: Record<string, Json> = {};
  return story.stops.map((s) => (set = s.set === undefined ? set : { ...set, ...s.set }));
}

/**
 * A narrated story: the scenario plays on the lab's timeline and pauses at
 * each stop, a caption pinned to an event the stop's query finds. A stop may
 * ask what happens next before it tells. The learner can step back, go on,
 * or scrub freely; "try this" toggles re-run the story with one change.
 */
export function StoryEmbed({ lesson, story }: { lesson: LabLesson; story: Story }) {
  const owner = `story:${story.id}`;
  const owns = useStage((s) => s.owner === owner);
  const sets = useMemo(() => setsOf(story), [story]);
  const [index, setIndex] = useState(-1);
  const [trace, setTrace] = useState<LoadedTrace | null>(null);
  const [tried, setTried] = useState<string | null>(null);
  const answers = useProgress((s) => s.answers[lesson.id]);
  const reachStop = useProgress((s) => s.reachStop);
  const anchor = useLessonRoute((s) => s.anchor);
  const recordings = useMemo(() => recordingsOfStory(lesson.id, story.id), [lesson.id, story.id]);
  const secondary = useTrace(useUi((s) => s.secondaryId));
  const secondaryNote = useUi((s) => s.secondaryNote);
  // The recording on screen is this story's while the story owns the stage and its run is the story's own (not a "try this").
  const real = owns && tried === null && secondary !== null && secondary.doc.source === 'real' ? secondary : null;

  /** Loads the run a stop belongs to (if it is not on screen) and puts the playhead on its event. */
  const goTo = useCallback(
    async (i: number) => {
      const set = i < 0 ? (sets[0] ?? {}) : sets[i]!;
      let t = trace;
      if (t === null || tried !== null || !owns || JSON.stringify(set) !== JSON.stringify(currentSet(t))) {
        t = await runRef(lesson, { scenario: story.scenario, set });
        if (t === null) return;
        setTrace(t);
        setTried(null);
        stage(owner, t);
      }
      if (i >= 0) {
        const e = findEvent(t.doc.events, story.stops[i]!.at);
        if (e !== undefined) seekStop(lesson.id, story, i, e.seq);
        reachStop(lesson.id, `${story.id}/${story.stops[i]!.id}`);
      }
      useUi.getState().set({ playing: false });
      setIndex(i);
    },
    [lesson, story, sets, trace, tried, owns, owner, reachStop],
  );

  /**
   * Sets the recorded real run beside the story. The recording is of the run
   * the story opens with, so a story not on the stage, or on a later stop's
   * changed run (fencing turned on) or a "try this", starts again from the top.
   */
  const watchReal = async (r: Recording) => {
    if (!owns || trace === null || tried !== null || JSON.stringify(currentSet(trace)) !== JSON.stringify(sets[0] ?? {})) await goTo(-1);
    await openRecording(r);
  };

  // A deep link to one of this story's stops opens the story there.
  useEffect(() => {
    const i = story.stops.findIndex((s) => anchor === stopAnchor(story.id, s.id));
    if (i >= 0) {
      void goTo(i);
      document.getElementById(stopAnchor(story.id, story.stops[i]!.id))?.scrollIntoView({ block: 'center' });
    }
    // Only when the address changes, not whenever goTo's inputs do.
  }, [anchor]);

  // While playing, stop at the next stop's event (in the run on screen) and show its caption.
  useEffect(() => {
    if (!owns || trace === null || tried !== null) return;
    return useUi.subscribe((now, before) => {
      if (!now.playing || now.cursor === before.cursor) return;
      const next = index + 1;
      const stop = story.stops[next];
      if (stop === undefined || JSON.stringify(sets[next]) !== JSON.stringify(currentSet(trace))) return;
      const e = findEvent(trace.doc.events, stop.at);
      if (e !== undefined && now.cursor >= e.seq) {
        useUi.getState().set({ playing: false });
        seekStop(lesson.id, story, next, e.seq);
        reachStop(lesson.id, `${story.id}/${stop.id}`);
        setIndex(next);
      }
    });
  }, [owns, trace, tried, index, story, sets, lesson.id, reachStop]);

  const stop = index >= 0 ? story.stops[index] : undefined;
  const askKey = stop === undefined ? '' : storyAskKey(story.id, stop.id);
  const askOrder = stop?.ask === undefined ? [] : optionOrder(lesson.id, askKey, stop.ask.options.length);
  const asked = stop?.ask !== undefined && answers?.[askKey] === undefined;
  const event = stop !== undefined && trace !== null ? findEvent(trace.doc.events, stop.at) : undefined;
  const nextNeedsRun = index + 1 < story.stops.length && JSON.stringify(sets[index + 1]) !== JSON.stringify(sets[Math.max(0, index)]);

  /*
   * "Play the story" and "Back to the story" are replaced by the stage they
   * open, and "Play to the next stop" is disabled at a stop that asks first:
   * each would leave the focus on the page's body, Tab starting again from the
   * top. The focus goes on to what the learner does next: the button that
   * plays to the next stop, or the stop's question.
   */
  const panel = useRef<HTMLDivElement | null>(null);
  const focusNext = useRef(false);
  const start = () => {
    focusNext.current = true;
    void goTo(-1);
  };
  useEffect(() => {
    const p = panel.current;
    if (p === null) return;
    if (focusNext.current) {
      focusNext.current = false;
      p.querySelector<HTMLElement>('[data-testid="stop-next"]')?.focus();
      return;
    }
    const at = document.activeElement;
    if (asked && (at === null || at === document.body || p.contains(at))) p.querySelector<HTMLElement>('[data-testid="stop-ask"] input')?.focus();
  }, [owns, trace, tried, index, asked]);

  return (
    <section className="embed story" aria-label={`Story: ${story.title}`} data-story={story.id}>
      <h3 className="embed-title">▶ Story: {story.title}</h3>
      <ol className="stop-list" aria-label="Stops of the story">
        {story.stops.map((s, i) => (
          <li key={s.id} id={stopAnchor(story.id, s.id)} className={i === index && owns ? 'current' : i < index && owns ? 'seen' : ''}>
            {/* Which stop is on screen, and which were passed, is more than a colour: a screen reader hears "Stop 3, current step". */}
            <a
              href={`#/lesson/${lesson.folder}?at=${stopAnchor(story.id, s.id)}`}
              aria-label={`Stop ${i + 1}${i < index && owns ? ', seen' : ''}`}
              aria-current={i === index && owns ? 'step' : undefined}
              onClick={(ev) => {
                ev.preventDefault();
                useLessonRoute.getState().go(lesson.id, stopAnchor(story.id, s.id));
              }}
            >
              {i + 1}
            </a>
          </li>
        ))}
      </ol>
      <RealServersControl story={story} recordings={recordings} open={real === null ? null : secondaryNote} onWatch={(r) => void watchReal(r)} />
      {!owns || trace === null ? (
        <p>
          <button type="button" className="primary" onClick={start} data-testid={`play-story-${story.id}`}>
            Play the story
          </button>{' '}
          <span className="muted small">{stopsText(story.stops)}</span>
        </p>
      ) : (
        <Stage
          title={`${story.title}${tried === null ? '' : ` · ${story.tries.find((t) => t.id === tried)?.label ?? ''}`}${real === null ? '' : ' · simulated'}`}
          {...(real === null ? {} : { compareTitle: `${story.title} · on real servers, ${secondaryNote}`, runs: STORY_AND_REAL })}
          verdict={tried !== null || index === story.stops.length - 1}
          curtain={asked}
        >
          {/*
           * What a screen reader says as the story moves: the stop and its caption, from a region that is always there
           * (one that appears with its words is not read out). The panel itself is not live, or every option and button
           * in it would be read again with each change; a stop's question takes the focus, and is read from there.
           */}
          <p className="sr-only" aria-live="polite" data-testid="stop-said">
            {tried === null && stop !== undefined && !asked
              ? `Stop ${index + 1} of ${story.stops.length}. ${event === undefined ? stop.text : fillCaption(stop.text, event).text}`
              : ''}
          </p>
          <div className="stop-panel" data-testid="stop-panel" data-stop={stop?.id ?? ''} ref={panel}>
            {tried !== null ? (
              <TryResult story={story} tried={tried} trace={trace} />
            ) : stop === undefined ? (
              <p>Press Play (or Space) and the story stops at each moment that matters. Use the buttons below to go from stop to stop.</p>
            ) : asked ? (
              <div data-testid="stop-ask">
                <p className="stop-number">
                  Stop {index + 1} of {story.stops.length}: before we tell you…
                </p>
                <Choices
                  name={askKey}
                  prompt={stop.ask!.prompt}
                  multi={stop.ask!.multi === true}
                  options={stop.ask!.options}
                  order={askOrder}
                  chosen={null}
                  onAnswer={(chosen) => {
                    useProgress.getState().answer(lesson.id, askKey, chosen);
                    if (event !== undefined) useUi.getState().seekSeq(event.seq);
                  }}
                  draw={(text) => shortText(lesson, text)}
                />
              </div>
            ) : (
              <div data-testid="stop-caption">
                <p className="stop-number">
                  Stop {index + 1} of {story.stops.length}
                </p>
                {stop.ask !== undefined && (
                  <Choices
                    name={askKey}
                    prompt={stop.ask.prompt}
                    multi={stop.ask.multi === true}
                    options={stop.ask.options}
                    order={askOrder}
                    chosen={answers?.[askKey] ?? null}
                    onAnswer={() => undefined}
                    draw={(text) => shortText(lesson, text)}
                    onRetry={() => {
                      // Asked again, the stop is as it was before the answer: the drawing covered, the playhead just before its event.
                      useProgress.getState().unanswer(lesson.id, askKey);
                      if (event !== undefined) useUi.getState().seekSeq(event.seq - 1);
                    }}
                  />
                )}
                <p className="caption">{event === undefined ? stop.text : fillCaption(stop.text, event).text}</p>
              </div>
            )}
            <p className="stop-buttons">
              <button type="button" onClick={() => void goTo(index - 1)} disabled={index < 0 || tried !== null} data-testid="stop-back">
                ◀ Previous stop
              </button>{' '}
              {index + 1 < story.stops.length ? (
                <>
                  <button
                    type="button"
                    className="primary"
                    onClick={() => (nextNeedsRun || tried !== null ? void goTo(index + 1) : useUi.getState().set({ playing: true }))}
                    disabled={asked}
                    data-testid="stop-next"
                    title={asked ? 'Answer the question first' : undefined}
                  >
                    {nextNeedsRun ? 'Next: run it again with a change ▶' : 'Play to the next stop ▶'}
                  </button>{' '}
                  <button type="button" onClick={() => void goTo(index + 1)} disabled={asked} data-testid="stop-skip">
                    Jump to the next stop
                  </button>
                </>
              ) : (
                <strong className="story-end">The end of the story.</strong>
              )}
            </p>
          </div>
          {real !== null && !asked && <RealPanel story={trace} real={real} note={secondaryNote} racy={story.racy} realRuns={recordingOf(real)?.realRuns} />}
          {story.tries.length > 0 && (
            <div className="tries" role="group" aria-label="Try this">
              <span className="muted small">Try this:</span>{' '}
              {story.tries.map((t) => (
                <button
                  key={t.id}
                  type="button"
                  aria-pressed={tried === t.id}
                  data-testid={`try-${t.id}`}
                  onClick={async () => {
                    const r = await runRef(lesson, { scenario: story.scenario, set: t.set });
                    if (r === null) return;
                    setTrace(r);
                    setTried(t.id);
                    stage(owner, r);
                    useUi.getState().seekSeq(r.doc.events.length - 1);
                  }}
                >
                  {t.label}
                </button>
              ))}{' '}
              {tried !== null && (
                <button type="button" onClick={start}>
                  Back to the story
                </button>
              )}
            </div>
          )}
        </Stage>
      )}
    </section>
  );
}

/** The overrides a trace of this lesson was run with, as a set map. */
function currentSet(t: LoadedTrace): Record<string, Json> {
  const overrides = t.origin.kind === 'file' ? [] : t.origin.overrides;
  return Object.fromEntries(
    overrides.map((o) => {
      const eq = o.indexOf('=');
      const raw = o.slice(eq + 1);
      let value: Json = raw;
      try {
        value = JSON.parse(raw) as Json;
      } catch {
        // A plain string value, as --set takes it.
      }
      return [o.slice(0, eq), value];
    }),
  );
}

function TryResult({ story, tried, trace }: { story: Story; tried: string; trace: LoadedTrace }) {
  const t = story.tries.find((x) => x.id === tried)!;
  const r = judgeTrace(t.expect, trace);
  return (
    <div data-testid="try-result">
      <p className="stop-number">Try this: {t.label}</p>
      <p className="caption">{t.says}</p>
      <ul className="checked">
        {r.checked.map((c) => (
          <li key={c.statement} className={c.ok ? 'ok' : 'bad'}>
            {c.ok ? '✓' : '✗'} {c.statement}
            {c.ok ? '' : ` (but ${c.found})`}
          </li>
        ))}
      </ul>
    </div>
  );
}
