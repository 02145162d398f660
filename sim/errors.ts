/** One problem with a user's input: where it is and what was expected. */
export interface InputIssue {
  /** A JSON path such as `clients[0].ttlMs`, or an option such as `--seed`. */
  readonly path: string;
  readonly message: string;
}

/**
 * A mistake in what the user gave us (a file, an option, a link). It is shown
 * as plain lines naming the source and the path, never as a stack trace.
 */
export class InputError extends Error {
  constructor(
    readonly source: string,
    readonly issues: readonly InputIssue[],
  ) {
    super(issues.map((i) => formatIssue(source, i)).join('\n'));
    this.name = 'InputError';
  }
}

export function formatIssue(source: string, issue: InputIssue): string {
  const where = issue.path === '' ? source : `${source}: ${issue.path}`;
  return `${where}: ${issue.message}`;
}

/** Renders a value briefly for an error message. */
export function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
