import { useState } from 'react';
import { optionOrder } from '../../sim/lessons/option-order.js';
import type { Question } from '../../sim/lessons/types.js';
import type { LoadedTrace } from '../state/traces.js';
import { Choices } from './Choices.js';
import { shortText } from './short-text.js';
import { useProgress } from './progress.js';
import { judgeTrace, runRef, stage, useStage } from './stage.js';
import { Stage } from './Stage.js';
import type { LabLesson } from './types.js';

export const questionAnchor = (id: string): string => `q-${id}`;

/**
 * One quiz question. A prediction is answered first and then run: the
 * replayed run is shown on the timeline, with the option it bears out.
 */
export function QuestionEmbed({ lesson, question, number }: { lesson: LabLesson; question: Question; number: number }) {
  const chosen = useProgress((s) => s.answers[lesson.id]?.[question.id] ?? null);
  const owner = `question:${question.id}`;
  const owns = useStage((s) => s.owner === owner);
  const [trace, setTrace] = useState<LoadedTrace | null>(null);

  const replay = async () => {
    if (question.predict === undefined) return;
    const t = await runRef(lesson, question.predict);
    if (t === null) return;
    setTrace(t);
    stage(owner, t);
  };
  // Which options describe the run, judged once: the first is what happened; the run is the learner's only when every option they chose describes it.
  const describes = trace === null ? [] : question.options.map((o) => judgeTrace(o.expect ?? [], trace).ok);
  const happened = describes.indexOf(true);
  const predicted = chosen !== null && chosen.length > 0 && chosen.every((i) => question.options[i]?.expect !== undefined && describes[i] === true);

  return (
    <section
      className={question.predict === undefined ? 'embed question' : 'embed question prediction'}
      id={questionAnchor(question.id)}
      data-question={question.id}
    >
      <h3 className="embed-title">{question.predict === undefined ? `Question ${number}` : `Question ${number} · make a prediction`}</h3>
      <Choices
        name={`${lesson.id}-${question.id}`}
        prompt={question.prompt}
        multi={question.multi}
        options={question.options}
        order={optionOrder(lesson.id, question.id, question.options.length)}
        chosen={chosen}
        checkLabel={question.predict === undefined ? 'Check my answer' : 'Lock in my prediction and run it'}
        draw={(text) => shortText(lesson, text)}
        onAnswer={(c) => {
          useProgress.getState().answer(lesson.id, question.id, c);
          void replay();
        }}
        onRetry={() => {
          // A prediction's run would give the answer away: it goes with the answer.
          setTrace(null);
          useProgress.getState().unanswer(lesson.id, question.id);
        }}
      />
      {question.predict !== undefined && chosen !== null && (!owns || trace === null) && (
        <button type="button" onClick={() => void replay()} data-testid={`replay-${question.id}`}>
          Watch the replayed run
        </button>
      )}
      {owns && trace !== null && (
        <Stage title={predicted ? 'The run you predicted' : 'The run that happened, not the one you predicted'}>
          <p className="caption" data-testid="prediction-result" data-happened={happened}>
            {happened >= 0 ? <>What happened: “{shortText(lesson, question.options[happened]!.text)}”</> : 'None of the options describes this run exactly.'}
          </p>
        </Stage>
      )}
    </section>
  );
}
