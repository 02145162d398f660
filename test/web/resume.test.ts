import { describe, expect, it } from 'vitest';
import { resumeTarget } from '../../web/lessons/resume.js';

/* The course page's main button: where a returning learner expects to go on. */

const lessons = [{ id: 'one' }, { id: 'two' }, { id: 'three' }, { id: 'four' }];
const none = [false, false, false, false];

describe('resumeTarget', () => {
  it('starts with the first lesson when nothing was visited or finished', () => {
    expect(resumeTarget(lessons, none, null)).toEqual({ kind: 'start', lesson: lessons[0] });
    expect(resumeTarget(lessons, none, { lab: true })).toEqual({ kind: 'start', lesson: lessons[0] });
  });

  it('continues the lesson last visited, at its place, while it is unfinished', () => {
    expect(resumeTarget(lessons, [true, false, false, false], { lesson: 'three', anchor: 'q-x' })).toEqual({
      kind: 'continue',
      lesson: lessons[2],
      anchor: 'q-x',
    });
  });

  it('goes on to the next unfinished lesson after the last visited once that one is finished, not back to it', () => {
    expect(resumeTarget(lessons, [false, false, true, false], { lesson: 'three', anchor: null })).toEqual({ kind: 'next', lesson: lessons[3] });
    // Lesson four is finished too: the next unfinished one after three is past the end, so the course goes round to lesson one.
    expect(resumeTarget(lessons, [false, true, true, true], { lesson: 'three', anchor: null })).toEqual({ kind: 'next', lesson: lessons[0] });
  });

  it('from the free lab, or a lesson the course no longer has, goes on to the first unfinished lesson', () => {
    expect(resumeTarget(lessons, [true, true, false, false], { lab: true })).toEqual({ kind: 'next', lesson: lessons[2] });
    expect(resumeTarget(lessons, [true, false, false, false], { lesson: 'gone', anchor: null })).toEqual({ kind: 'next', lesson: lessons[1] });
  });

  it('says the course is done when every lesson is finished, wherever the learner was', () => {
    expect(resumeTarget(lessons, [true, true, true, true], { lesson: 'four', anchor: 'q-y' })).toEqual({ kind: 'done' });
    expect(resumeTarget(lessons, [true, true, true, true], null)).toEqual({ kind: 'done' });
  });
});
