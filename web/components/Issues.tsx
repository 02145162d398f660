import type { InputIssue } from '../../sim/errors.js';

type Place = ((path: string) => string | undefined) | undefined;

/** One problem: where it is in the form's words when there are some ("Client A › TTL (ms)"), its path, and what is wrong. */
function Line({ source, issue, place }: { source: string; issue: InputIssue; place: Place }) {
  const where = issue.path === '' ? undefined : place?.(issue.path);
  return (
    <>
      {where !== undefined && <strong data-testid="issue-place">{where}: </strong>}
      <code>{issue.path === '' ? source : `${source}: ${issue.path}`}</code> {issue.message}
    </>
  );
}

/**
 * Problems with a file, a link or a form: the first in full, the rest
 * folded under a count, so one broken field cannot push the page away.
 * Text only, never HTML from the input.
 */
export function Issues({
  source,
  issues,
  what,
  place,
}: {
  source: string;
  issues: readonly InputIssue[];
  what?: string | undefined;
  /** Names a path in the words of the form it came from. */
  place?: Place;
}) {
  const [first, ...rest] = issues;
  return (
    <div className="issues-box">
      {(what !== undefined || first !== undefined) && (
        <p className="issue-first" data-testid="first-issue">
          {what !== undefined && `${source} is ${what}. `}
          {first !== undefined && (
            <>
              {what !== undefined && (rest.length > 0 ? 'Its first problem: ' : 'Its problem: ')}
              <Line source={source} issue={first} place={place} />
            </>
          )}
        </p>
      )}
      {rest.length > 0 && (
        <details className="issues-more" data-testid="more-issues">
          <summary>
            {rest.length} more problem{rest.length === 1 ? '' : 's'}
          </summary>
          <ul className="issues">
            {rest.map((i, k) => (
              <li key={k}>
                <Line source={source} issue={i} place={place} />
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
