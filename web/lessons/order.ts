import type { Lesson, Question, Story } from '../../sim/lessons/types.js';

/**
 * The lesson's questions in the order the learner meets them: each one the
 * text places with ::question where it stands, the rest where ::quiz is. So
 * a prediction in the text is question 1, not question 6 of a quiz below it.
 */
export function questionsInPageOrder(lesson: Lesson): Question[] {
  const placed = new Set<string>();
  const order: Question[] = [];
  const byId = new Map(lesson.quiz.map((q) => [q.id, q]));
  const marks = [...lesson.body.matchAll(/^::(?:question\{id=([^}\s]+)\}|quiz)\s*$/gm)];
  for (const m of marks) if (m[1] !== undefined) placed.add(m[1]);
  for (const m of marks) {
    if (m[1] !== undefined) {
      const q = byId.get(m[1]);
      if (q !== undefined) order.push(q);
    } else order.push(...lesson.quiz.filter((q) => !placed.has(q.id)));
  }
  // A question the text does not reach (no ::quiz) still gets a number, after the others.
  for (const q of lesson.quiz) if (!order.includes(q)) order.push(q);
  return order;
}

/** An entry of a lesson's outline of questions: a quiz question, or a story with the questions its stops ask. */
export type Asked = { readonly kind: 'question'; readonly question: Question } | { readonly kind: 'story'; readonly story: Story };

/**
 * The lesson's questions as its outline lists them, in the order the learner
 * meets them: the quiz's questions (numbered as questionsInPageOrder numbers
 * them), and each story whose stops ask a question, where the story stands,
 * so its questions are marked beside the quiz's. A story that asks nothing is
 * not listed.
 */
export function askedInPageOrder(lesson: Lesson): Asked[] {
  const lines = lesson.body.split('\n').map((l) => l.trim());
  const at = (mark: string): number => {
    const i = lines.indexOf(mark);
    return i < 0 ? Number.POSITIVE_INFINITY : i;
  };
  const questions = questionsInPageOrder(lesson).map((q) => {
    const placed = at(`::question{id=${q.id}}`);
    return { kind: 'question' as const, question: q, place: placed === Number.POSITIVE_INFINITY ? at('::quiz') : placed };
  });
  const stories = lesson.stories
    .filter((s) => s.stops.some((stop) => stop.ask !== undefined))
    .map((s) => ({ kind: 'story' as const, story: s, place: at(`::story{id=${s.id}}`) }));
  // A stable sort: the quiz's questions keep their order among themselves.
  return [...questions, ...stories].sort((a, b) => (a.place === b.place ? 0 : a.place < b.place ? -1 : 1)).map(({ place: _, ...asked }) => asked);
}
