/*
 * What the lab's Odds view takes, beside what `locklab sweep` takes: a lesson
 * that links a sweep is checked against the same figures, so the link it
 * gives opens a form the view can run.
 */

/** The Odds view varies one field, or two. */
export const MAX_LAB_VARIED = 2;

/** The most runs one sweep in the browser may take (points × runs per point): beyond this, use `locklab sweep`. */
export const MAX_LAB_RUNS = 2_000_000;
