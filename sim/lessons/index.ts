/** Lessons: the format, its loader and checker, the assertion vocabulary and event queries. Pure: texts in, data out. */
export { loadCourse, formatProblem, type CourseFiles, type LoadedCourse } from './load.js';
export { parseLesson, countsOf, LESSON_MD, LESSON_DATA, type LessonFiles } from './parse.js';
export { checkLesson } from './check.js';
export { checkCourse, coverageOf, parseClaims, CLAIMS_FILE, MAX_TEXT_ONLY, type Claim, type ClaimCoverage } from './course.js';
export { evaluate, evaluateAll, type Checked, type Judged } from './expect.js';
export { findEvent, matchingEvents, describeQuery } from './query.js';
export { fillCaption } from './caption.js';
export { optionOrder, storyAskKey } from './option-order.js';
export { judge, scenarioOf, rawOf, overrideStrings } from './runs.js';
export { sweepIssues, sweepCommand } from './sweeps.js';
export { attemptRef, changesOf, valueAt, NO_CHANGE, type Attempt } from './attempt.js';
export * from './types.js';
