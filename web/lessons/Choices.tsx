import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { Option } from '../../sim/lessons/types.js';
import { isRight } from './answers.js';

/**
 * The question whose check button was just pressed. Checking removes the
 * button (and disables the options), which would drop the focus on the page
 * and say nothing to a screen reader; the verdict takes the focus instead,
 * so it is read out and Tab goes on from the question. A story's question
 * is drawn again in the caption once answered, so this is kept by name, not
 * in the instance whose button was pressed.
 */
let justChecked: string | null = null;

/**
 * A question's options: one choice (radio) unless it is multi-select
 * (checkboxes). Once answered, every option says whether it was right and
 * why, the learner's choice marked. `draw` draws a text of the question
 * (its prompt, an option, a reason) as its lesson writes it (short-text.ts).
 * The options are shown in `order` (`optionOrder`), a permutation of their
 * written indices; choices are the written indices, whatever the order.
 * With `onRetry`, an answered question can be answered again (a class going
 * over it twice, a learner who wants another go).
 */
export function Choices({
  name,
  prompt,
  multi,
  options,
  order,
  chosen,
  onAnswer,
  checkLabel = 'Check my answer',
  draw,
  onRetry,
}: {
  name: string;
  prompt: string;
  multi: boolean;
  options: readonly Option[];
  order: readonly number[];
  chosen: readonly number[] | null;
  onAnswer(chosen: number[]): void;
  checkLabel?: string;
  draw(text: string): ReactNode;
  onRetry?: () => void;
}) {
  const [picked, setPicked] = useState<number[]>(chosen === null ? [] : [...chosen]);
  const answered = chosen !== null;
  const right = answered && isRight(options, chosen);
  const verdict = useRef<HTMLParagraphElement | null>(null);
  const box = useRef<HTMLFieldSetElement | null>(null);
  const retried = useRef(false);
  useEffect(() => {
    if (!answered || justChecked !== name) return;
    justChecked = null;
    verdict.current?.focus();
  }, [answered, name]);
  // Try again removes its own button: the focus goes to the first option, where the new answer starts.
  useEffect(() => {
    if (answered || !retried.current) return;
    retried.current = false;
    box.current?.querySelector<HTMLInputElement>('input')?.focus();
  }, [answered]);
  return (
    <fieldset className="choices" ref={box} data-answered={answered} data-right={answered ? right : undefined}>
      <legend className="prompt">{draw(prompt)}</legend>
      {multi && !answered && <p className="muted small">Tick every option that applies.</p>}
      <ul>
        {order.map((i) => {
          const o = options[i]!;
          const mine = answered ? chosen.includes(i) : picked.includes(i);
          return (
            <li key={o.text} className={answered ? (o.correct ? 'option right' : mine ? 'option wrong' : 'option') : 'option'} data-option={i}>
              <label>
                <input
                  type={multi ? 'checkbox' : 'radio'}
                  name={name}
                  checked={mine}
                  disabled={answered}
                  onChange={() => setPicked(multi ? (picked.includes(i) ? picked.filter((p) => p !== i) : [...picked, i]) : [i])}
                />{' '}
                {draw(o.text)}
              </label>
              {answered && (
                <p className="why">
                  <strong>
                    {o.correct ? 'Right' : 'Wrong'}
                    {/* A right option left out is a miss: on a multi-select question "Right:" alone reads as if it had been ticked. */}
                    {mine ? ' (your answer)' : o.correct ? ' (you missed it)' : ''}:
                  </strong>{' '}
                  {draw(o.why)}
                </p>
              )}
            </li>
          );
        })}
      </ul>
      {!answered ? (
        <button
          type="button"
          className="primary"
          disabled={picked.length === 0}
          onClick={() => {
            justChecked = name;
            onAnswer([...picked].sort((a, b) => a - b));
          }}
        >
          {checkLabel}
        </button>
      ) : (
        <>
          <p className={right ? 'verdict-line ok' : 'verdict-line bad'} data-testid="answer-result" tabIndex={-1} ref={verdict}>
            {right
              ? '✓ That is right.'
              : `✗ Not quite: ${options.filter((o) => o.correct).length > 1 ? 'the right answers are' : 'the right answer is'} marked above, and every option says why.`}
          </p>
          {onRetry !== undefined && (
            <button
              type="button"
              onClick={() => {
                retried.current = true;
                setPicked([]);
                onRetry();
              }}
              data-testid="try-again"
            >
              Try again
            </button>
          )}
        </>
      )}
    </fieldset>
  );
}
