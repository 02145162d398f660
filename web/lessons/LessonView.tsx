import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { toJsxRuntime, type Components } from 'hast-util-to-jsx-runtime';
import { Fragment, jsx, jsxs } from 'react/jsx-runtime';
import { stepAnchor } from '../../sim/lessons/markdown.js';
import { storyAskKey } from '../../sim/lessons/option-order.js';
import type { Option } from '../../sim/lessons/types.js';
import { lessonSummary, LESSONS, loadLesson } from './catalog.js';
import { ChallengeEmbed, challengeAnchor } from './ChallengeEmbed.js';
import { useProgress } from './progress.js';
import { QuestionEmbed, questionAnchor } from './QuestionEmbed.js';
import { askedInPageOrder, questionsInPageOrder } from './order.js';
import { usePageTitle } from '../components/PageHeading.js';
import { landFocus } from '../state/page-top.js';
import type { Notice } from '../state/ui.js';
import { noticeOfLink, useLessonRoute } from './route.js';
import { runStoriesEarly } from './stage.js';
import { guessesText, statusLine, statusOf } from './status.js';
import { isRight } from './answers.js';
import { stopAnchor, StoryEmbed } from './StoryEmbed.js';
import { SweepEmbed } from './SweepEmbed.js';
import type { LabLesson } from './types.js';
import './lessons.css';

function textOf(children: ReactNode): string {
  if (typeof children === 'string' || typeof children === 'number') return String(children);
  if (Array.isArray(children)) return children.map(textOf).join('');
  return '';
}

/** A lesson: its text with the embeds in place, steps to jump between, and the next lesson at the end. */
export default function LessonView() {
  const id = useLessonRoute((s) => s.lesson);
  const anchor = useLessonRoute((s) => s.anchor);
  const [lesson, setLesson] = useState<LabLesson | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    setLesson(null);
    if (id === null) return;
    loadLesson(id).then(
      (l) => {
        // The stories' first runs start before the lesson is drawn, so that Play does not wait for them.
        runStoriesEarly(l);
        setLesson(l);
      },
      (e: Error) => setError(e.message),
    );
  }, [id]);

  // Steps, questions, challenges and sweeps are plain anchors; stops are handled by their story.
  useEffect(() => {
    if (lesson === null) return;
    const el = anchor === null ? null : document.getElementById(anchor);
    if (anchor !== null && el === null) noticeOfLink(unknownPlace(lesson, anchor));
    if (el === null) landFocus(document.querySelector<HTMLElement>('main [data-page-heading]'));
    if (el === null || anchor!.startsWith('stop-')) return;
    el.scrollIntoView({ block: 'start' });
    // The keyboard starts at what the place asks for: a question's first option, a challenge's first knob, a sweep's link to the Odds view.
    (el.querySelector('input, button, a.sweep-open') as HTMLElement | null)?.focus({ preventScroll: true });
  }, [lesson, anchor]);

  if (error !== null) return <p className="warn">{error}</p>;
  if (lesson === null) return <p className="muted">Loading the lesson…</p>;
  return <LessonBody lesson={lesson} />;
}

/**
 * What a link to a place the lesson does not have says: a step renamed since
 * the link was made (a step's anchor is its title), or a link cut short.
 * The lesson opens at its top rather than nowhere in particular.
 */
function unknownPlace(lesson: LabLesson, anchor: string): Notice {
  return {
    title: `This link names a place lesson ${lesson.number} does not have, so it opened at the top of the lesson`,
    source: 'link',
    issues: [
      {
        path: 'at',
        message: `no step, stop, question, challenge or sweep ${JSON.stringify(anchor.slice(0, 80))}; the lesson's steps are ${lesson.steps.map((s) => `"${s.title}"`).join(', ')}`,
      },
    ],
    tone: 'error',
  };
}

function LessonBody({ lesson }: { lesson: LabLesson }) {
  const progress = useProgress();
  const summary = lessonSummary(lesson.id)!;
  const status = statusOf(summary, progress);
  const answers = progress.answers[lesson.id] ?? {};
  const next = LESSONS.find((l) => l.number > lesson.number);
  const go = useLessonRoute((s) => s.go);
  usePageTitle(lesson.title);
  const inOrder = useMemo(() => questionsInPageOrder(lesson), [lesson]);
  const asked = useMemo(() => askedInPageOrder(lesson), [lesson]);

  const components = useMemo(() => {
    const placed = new Set(lesson.quiz.map((q) => q.id).filter((q) => lesson.body.includes(`::question{id=${q}}`)));
    const numberOf = (qid: string) => inOrder.findIndex((q) => q.id === qid) + 1;
    return {
      h2: ({ children }: { children?: ReactNode }) => {
        const step = stepAnchor(textOf(children));
        return (
          <h2 id={step} className="step-heading">
            <a
              href={`#/lesson/${lesson.folder}?at=${step}`}
              className="step-link"
              onClick={(ev) => {
                ev.preventDefault();
                go(lesson.id, step);
              }}
            >
              {children}
            </a>
          </h2>
        );
      },
      'lesson-embed': (props: Record<string, string>) => {
        const kind = props['data-kind'];
        const eid = props['data-id'];
        if (kind === 'story') {
          const story = lesson.stories.find((s) => s.id === eid)!;
          return <StoryEmbed lesson={lesson} story={story} />;
        }
        if (kind === 'question') {
          const q = lesson.quiz.find((x) => x.id === eid)!;
          return <QuestionEmbed lesson={lesson} question={q} number={numberOf(q.id)} />;
        }
        if (kind === 'challenge') return <ChallengeEmbed lesson={lesson} challenge={lesson.challenges.find((c) => c.id === eid)!} />;
        if (kind === 'sweep') return <SweepEmbed sweep={lesson.sweeps.find((w) => w.id === eid)!} />;
        return (
          <div className="quiz" data-testid="quiz">
            {lesson.quiz
              .filter((q) => !placed.has(q.id))
              .map((q) => (
                <QuestionEmbed key={q.id} lesson={lesson} question={q} number={numberOf(q.id)} />
              ))}
          </div>
        );
      },
    } as unknown as Components;
  }, [lesson, inOrder, go]);
  // The text was made a tree when the lab was built (text-tree.ts): here it only becomes elements.
  const text = useMemo(
    () => toJsxRuntime(lesson.tree, { Fragment, jsx, jsxs, components, ignoreInvalidStyle: true, passKeys: true, passNode: true }),
    [lesson, components],
  );

  return (
    <article className="lesson" data-lesson={lesson.id}>
      <nav className="lesson-nav" aria-label="Steps of this lesson">
        <p>
          <a
            href="#/lessons"
            onClick={(ev) => {
              ev.preventDefault();
              go(null);
            }}
          >
            ← All lessons
          </a>
        </p>
        <ol>
          {lesson.steps.map((s) => (
            <li key={s.id}>
              <a
                href={`#/lesson/${lesson.folder}?at=${s.id}`}
                onClick={(ev) => {
                  ev.preventDefault();
                  go(lesson.id, s.id);
                }}
              >
                {s.title}
              </a>
            </li>
          ))}
        </ol>
        <p className="muted small" data-testid="lesson-status">
          {statusLine([
            `${status.answered}/${status.questions} questions${status.answered > 0 ? ` (${status.right} right)` : ''}`,
            `${status.storiesDone}/${status.stories} stories${guessesText(status)}`,
            `${status.solved}/${status.challenges} challenges`,
            status.finished && '✓ finished',
          ])}
        </p>
        <ul className="anchors muted small" aria-label="Questions and challenges">
          {asked.map((a) =>
            a.kind === 'question' ? (
              <li key={a.question.id} data-question={a.question.id}>
                <a
                  href={`#/lesson/${lesson.folder}?at=${questionAnchor(a.question.id)}`}
                  onClick={(ev) => {
                    ev.preventDefault();
                    go(lesson.id, questionAnchor(a.question.id));
                  }}
                >
                  Q{inOrder.indexOf(a.question) + 1}
                </a>
                <AnswerMark chosen={answers[a.question.id]} options={a.question.options} />
              </li>
            ) : (
              // A story's questions are asked at its stops: each is marked after its stop's link, as a quiz question is after its own.
              <li key={`story-${a.story.id}`} data-story={a.story.id}>
                ▶ {a.story.title}:
                {a.story.stops.map((stop, i) =>
                  stop.ask === undefined ? null : (
                    <span key={stop.id} data-stop={stop.id}>
                      {' '}
                      <a
                        href={`#/lesson/${lesson.folder}?at=${stopAnchor(a.story.id, stop.id)}`}
                        onClick={(ev) => {
                          ev.preventDefault();
                          go(lesson.id, stopAnchor(a.story.id, stop.id));
                        }}
                      >
                        stop {i + 1}
                      </a>
                      <AnswerMark chosen={answers[storyAskKey(a.story.id, stop.id)]} options={stop.ask.options} />
                    </span>
                  ),
                )}
              </li>
            ),
          )}
          {lesson.challenges.map((c) => (
            <li key={c.id}>
              <a
                href={`#/lesson/${lesson.folder}?at=${challengeAnchor(c.id)}`}
                onClick={(ev) => {
                  ev.preventDefault();
                  go(lesson.id, challengeAnchor(c.id));
                }}
              >
                {c.title}
              </a>
              {(progress.solved[lesson.id] ?? []).includes(c.id) && (
                <span className="mark-right" role="img" title="solved" aria-label="solved">
                  {' ✓'}
                </span>
              )}
            </li>
          ))}
        </ul>
      </nav>
      <div className="lesson-text">
        <header>
          <p className="muted small">
            Lesson {lesson.number} of {LESSONS.length}
          </p>
          <h1 className="lesson-heading" tabIndex={-1} data-page-heading>
            {lesson.title}
          </h1>
          <p className="lesson-summary">{lesson.summary}</p>
          {lesson.prerequisites.length > 0 && (
            <p className="muted small">
              Builds on:{' '}
              {lesson.prerequisites.map((p, i) => {
                const s = lessonSummary(p);
                return (
                  <span key={p}>
                    {i > 0 && ', '}
                    <a
                      href={`#/lesson/${s?.folder ?? p}`}
                      onClick={(ev) => {
                        ev.preventDefault();
                        go(p);
                      }}
                    >
                      {s === undefined ? p : `${s.number}. ${s.title}`}
                    </a>
                  </span>
                );
              })}
            </p>
          )}
        </header>
        {text}
        <details className="lesson-claims">
          <summary>What this lesson's runs prove ({lesson.shows.length} checked statements)</summary>
          <ul>
            {lesson.shows.map((s) => (
              <li key={`${s.claims.join()}-${s.says}`}>
                <span className="mono small">{s.claims.join(' ')}</span> {s.says}
                {s.precisely !== undefined && <em> Precisely: {s.precisely}</em>}
              </li>
            ))}
            {lesson.textOnly.map((t) => (
              <li key={t.claim}>
                <span className="mono small">{t.claim}</span> Taught in the text only: {t.reason}
              </li>
            ))}
            {lesson.pending.map((p) => (
              <li key={`${p.claim}-${p.needs}`}>
                <span className="mono small">{p.claim}</span> {p.part === 'all' ? 'Not shown yet' : 'Partly shown'}; waits for: {p.needs}
              </li>
            ))}
          </ul>
        </details>
        {next !== undefined && (
          <p className="next-lesson">
            <button type="button" className="primary" onClick={() => go(next.id)} data-testid="next-lesson">
              Next: lesson {next.number}, {next.title} →
            </button>
          </p>
        )}
      </div>
    </article>
  );
}

/** After a question's link in the lesson's outline: whether the learner answered it right (✓) or wrong (✗), once they have. */
function AnswerMark({ chosen, options }: { chosen: readonly number[] | undefined; options: readonly Option[] }) {
  if (chosen === undefined) return null;
  const ok = isRight(options, chosen);
  return (
    <span
      className={ok ? 'mark-right' : 'mark-wrong'}
      role="img"
      title={ok ? 'answered right' : 'answered wrong'}
      aria-label={ok ? 'answered right' : 'answered wrong'}
    >
      {ok ? ' ✓' : ' ✗'}
    </span>
  );
}
