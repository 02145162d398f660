import './lessons.css';
import { usePageTitle } from '../components/PageHeading.js';
import { useUi } from '../state/ui.js';
import { LESSONS } from './catalog.js';
import { useProgress } from './progress.js';
import { resumeTarget } from './resume.js';
import { useLessonRoute } from './route.js';
import { guessesText, statusLine, statusOf } from './status.js';

const COURSE_TITLE = 'Learn distributed locks by breaking them';

/** The course: every lesson with the learner's progress, a way back to where they were, and the free lab one click away. */
export function LessonsPage() {
  const progress = useProgress();
  const go = useLessonRoute((s) => s.go);
  usePageTitle(COURSE_TITLE);
  const statuses = LESSONS.map((l) => statusOf(l, progress));
  const finished = statuses.filter((s) => s.finished).length;
  const resume = resumeTarget(
    LESSONS,
    statuses.map((s) => s.finished),
    progress.last,
  );

  return (
    <div className="lessons-page">
      <header className="lessons-intro">
        <h1 className="lessons-title" tabIndex={-1} data-page-heading>
          {COURSE_TITLE}
        </h1>
        <p>
          Twelve short lessons. Each tells a story on a live timeline you can play, pause and scrub, asks you to predict what happens next, and ends with
          questions and a challenge checked by the same checker the lab uses. Nothing to install: every store is simulated in your browser.
        </p>
        <p className="lessons-actions">
          {resume.kind === 'continue' ? (
            <button type="button" className="primary" onClick={() => go(resume.lesson.id, resume.anchor)} data-testid="resume">
              Continue lesson {resume.lesson.number}: {resume.lesson.title}
            </button>
          ) : resume.kind === 'next' ? (
            <button type="button" className="primary" onClick={() => go(resume.lesson.id)} data-testid="resume">
              Go on to lesson {resume.lesson.number}: {resume.lesson.title}
            </button>
          ) : resume.kind === 'start' ? (
            <button type="button" className="primary" onClick={() => go(resume.lesson.id)} data-testid="start">
              Start with lesson {resume.lesson.number}
            </button>
          ) : (
            <strong data-testid="all-finished">You have finished all {LESSONS.length} lessons.</strong>
          )}{' '}
          <button
            type="button"
            className={resume.kind === 'done' ? 'primary' : undefined}
            onClick={() => useUi.getState().set({ view: 'lab' })}
            data-testid="open-lab"
          >
            Open the free lab
          </button>
        </p>
        <p className="muted small" data-testid="course-progress">
          {finished} of {LESSONS.length} lessons finished. Your progress is kept in this browser only.{' '}
          <button
            type="button"
            className="link-button"
            onClick={() => {
              if (window.confirm('Forget every answer, stop and solved challenge in this browser?')) progress.reset();
            }}
            data-testid="reset-progress"
          >
            Reset progress
          </button>
        </p>
      </header>
      <ol className="lesson-list">
        {LESSONS.map((l, i) => {
          const s = statuses[i]!;
          return (
            <li key={l.id} className={s.finished ? 'lesson-card done' : 'lesson-card'} data-lesson={l.id} data-finished={s.finished}>
              <a
                href={`#/lesson/${l.folder}`}
                onClick={(ev) => {
                  ev.preventDefault();
                  go(l.id);
                }}
              >
                <span className="lesson-number">{l.number}</span>
                <span className="lesson-title">{l.title}</span>
              </a>
              <p className="lesson-summary">{l.summary}</p>
              <p className="muted small lesson-status">
                {statusLine([
                  s.finished ? '✓ finished' : s.started && 'in progress',
                  `${s.answered}/${s.questions} questions answered${s.answered > 0 ? ` (${s.right} right)` : ''}`,
                  `${s.storiesDone}/${s.stories} stories played${guessesText(s)}`,
                  `${s.solved}/${s.challenges} challenges solved`,
                ])}
              </p>
            </li>
          );
        })}
      </ol>
    </div>
  );
}
