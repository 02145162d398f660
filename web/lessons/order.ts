import type { Lesson, Question } from '../../sim/lessons/types.js';

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
