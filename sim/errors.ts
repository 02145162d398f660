import { LIMITS } from './scenario/limits.js';

/** One problem with a user's input: where it is and what was expected. */
export interface InputIssue {
  /** A JSON path such as `clients[0].ttlMs`, or an option such as `--seed`. */
  readonly path: string;
  readonly message: string;
}

/**
 * A mistake in what the user gave us (a file, an option, a link). It is shown
 * as plain lines naming the source and the path, never as a stack trace.
 * A document with thousands of mistakes keeps only the first
 * `maxIssuesShown` and counts the rest, so the message stays readable and
 * its size does not grow with the input.
 */
export class InputError extends Error {
  readonly issues: readonly InputIssue[];
  /** How many issues there were beyond those kept in `issues`. */
  readonly more: number;

  constructor(
    readonly source: string,
    issues: readonly InputIssue[],
    more = 0,
  ) {
    const kept = issues.slice(0, LIMITS.maxIssuesShown);
    const extra = issues.length - kept.length + more;
    super(issueLines(source, kept, extra).join('\n'));
    this.name = 'InputError';
    this.issues = kept;
    this.more = extra;
  }

  /** The issues as a list to show, ending with "and N more" when some were left out. */
  shown(): InputIssue[] {
    return this.more > 0 ? [...this.issues, { path: '', message: moreText(this.more) }] : [...this.issues];
  }
}

export function formatIssue(source: string, issue: InputIssue): string {
  const where = issue.path === '' ? source : `${source}: ${issue.path}`;
  return `${where}: ${issue.message}`;
}

function moreText(more: number): string {
  return `and ${more} more issue${more === 1 ? '' : 's'}`;
}

function issueLines(source: string, issues: readonly InputIssue[], more: number): string[] {
  const lines = issues.map((i) => formatIssue(source, i));
  if (more > 0) lines.push(`${source}: ${moreText(more)}`);
  return lines;
}

const SHOW_CHARS = 60;

/**
 * Renders a value briefly for an error message. It never walks more of the
 * value than it prints, so a value nested thousands deep or holding a
 * million items is shown as quickly as a number.
 */
export function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = brief(value, SHOW_CHARS + 1, 0);
  return text.length > SHOW_CHARS ? `${text.slice(0, SHOW_CHARS - 3)}...` : text;
}

/** At most about `budget` characters of `value` as JSON; deeper than a few levels is elided. */
function brief(value: unknown, budget: number, depth: number): string {
  if (value === null || typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : String(value);
  if (typeof value === 'string') return JSON.stringify(value.length > budget ? value.slice(0, budget) : value);
  if (typeof value !== 'object') return typeof value;
  const isArray = Array.isArray(value);
  const [open, close] = isArray ? ['[', ']'] : ['{', '}'];
  if (depth >= 4) return `${open}...${close}`;
  let out = open;
  let first = true;
  const entries = isArray ? (value as unknown[]).keys() : Object.keys(value as object)[Symbol.iterator]();
  for (const k of entries) {
    if (out.length >= budget) {
      out += ',...';
      break;
    }
    const item = (value as Record<string | number, unknown>)[k];
    const rendered = brief(item, budget - out.length, depth + 1);
    out += (first ? '' : ',') + (isArray ? rendered : `${JSON.stringify(k)}:${rendered}`);
    first = false;
  }
  return out + close;
}
