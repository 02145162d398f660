import { createScanner, parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { InputError, type InputIssue } from './errors.js';
import { LIMITS, TOP_LEVEL_ARRAYS, grouped, limitText, type LimitName } from './scenario/limits.js';

/*
 * The one JSON reader. The CLI (files and `--set` values), the lab's worker
 * (imported files and links) and the library (`normalizeScenario` given a
 * value) all go through it, so the same text gets the same answer
 * everywhere, in Node and in every browser.
 *
 * Parsing is the engine's JSON.parse, which never recurses (V8 parses a
 * document nested a million deep). Everything after it here is a loop with
 * its own stack, for the same reason. jsonc-parser is used only to say where
 * a syntax error is, in words that do not depend on the engine.
 */

const WORDS: Readonly<Record<string, string>> = {
  InvalidSymbol: 'an unexpected character',
  InvalidNumberFormat: 'a malformed number',
  PropertyNameExpected: 'a property name (in double quotes) was expected',
  ValueExpected: 'a value was expected',
  ColonExpected: "a ':' was expected",
  CommaExpected: "a ',' was expected",
  CloseBraceExpected: "a '}' was expected",
  CloseBracketExpected: "a ']' was expected",
  EndOfFileExpected: 'text after the end of the JSON value',
  InvalidCommentToken: 'comments are not allowed in JSON',
  UnexpectedEndOfComment: 'an unfinished comment',
  UnexpectedEndOfString: 'an unfinished string',
  UnexpectedEndOfNumber: 'an unfinished number',
  InvalidUnicode: 'a bad \\u escape',
  InvalidEscapeCharacter: 'a bad escape character',
  InvalidCharacter: 'a control character inside a string',
};

const BOM = '\uFEFF';

/** Which size limit a document is held to: a scenario (file, link, `--set` value) or a trace file. */
export type JsonKind = 'scenario' | 'trace';

const SIZE_LIMIT: Readonly<Record<JsonKind, LimitName>> = { scenario: 'maxScenarioBytes', trace: 'maxTraceBytes' };

/**
 * Turns a file's bytes into text by the same rules everywhere: within the
 * size limit of its kind, not UTF-16, valid UTF-8. `decodeUtf8` is the
 * platform's strict decoder (TextDecoder with `fatal: true`), passed in so
 * the core needs no platform API; it throws on a malformed byte sequence.
 */
export function textOfBytes(bytes: Uint8Array, source: string, kind: JsonKind, decodeUtf8: (bytes: Uint8Array) => string): string {
  const limit = SIZE_LIMIT[kind];
  if (bytes.length > LIMITS[limit]) throw new InputError(source, [{ path: '', message: `is ${grouped(bytes.length)} bytes; ${limitText(limit)}` }]);
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw new InputError(source, [{ path: '', message: 'is UTF-16 text; save it as UTF-8' }]);
  }
  try {
    return decodeUtf8(bytes);
  } catch {
    throw new InputError(source, [{ path: '', message: 'is not UTF-8 text' }]);
  }
}

/**
 * Parses strict JSON (no comments, no trailing commas; a leading byte-order
 * mark is allowed and dropped). On any problem it throws an InputError that
 * names the source and says where and what: for a syntax error the line and
 * column, for a value it will not take (too deep, a number out of range, a
 * `__proto__` field) its JSON path, for a size the limit by name.
 */
export function parseJson(text: string, source: string, kind: JsonKind = 'scenario'): unknown {
  const body = text.startsWith(BOM) ? text.slice(1) : text;
  const sizeLimit = SIZE_LIMIT[kind];
  if (body.length > LIMITS[sizeLimit]) {
    throw new InputError(source, [{ path: '', message: `is ${grouped(body.length)} characters long; ${limitText(sizeLimit)}` }]);
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    const message = syntaxError(body);
    // One JSON value per line, the first a trace's head: a JSON Lines trace under a .json name.
    const jsonLines = kind === 'trace' && message.endsWith(WORDS.EndOfFileExpected!) && /^\{[^\n]*"schema"/.test(body);
    throw new InputError(source, [
      { path: '', message: jsonLines ? `${message} (a JSON Lines trace, one JSON object per line, is read when its name ends in .jsonl)` : message },
    ]);
  }
  checkJsonValue(value, source, kind);
  return value;
}

/**
 * Checks a value that did not come from text (a library caller's object, a
 * structured clone from the page) by the rules parseJson applies after
 * parsing: nesting within `maxDepth`, only finite numbers, no `__proto__`
 * field, only JSON's types, and for a scenario, arrays within their limits.
 * Throws an InputError naming the first bad path; a bad value with no path
 * (the whole value) is called `whole` in the message.
 */
export function checkJsonValue(value: unknown, source: string, kind: JsonKind = 'scenario', whole = 'the document'): void {
  const issue = firstBadValue(value, kind, whole);
  if (issue !== undefined) throw new InputError(source, [issue]);
}

/** The most items an array at `key` may have: the scenario's own lists by name, any other by the general limit. */
function arrayLimit(kind: JsonKind, frame: Frame): LimitName | undefined {
  if (kind !== 'scenario') return undefined;
  if (frame.depth === 2) {
    const named = TOP_LEVEL_ARRAYS[frame.key];
    if (named !== undefined) return named;
  }
  return 'maxArrayItems';
}

interface Frame {
  readonly value: object;
  readonly depth: number;
  readonly parent: Frame | undefined;
  readonly key: string | number;
}

function firstBadValue(root: unknown, kind: JsonKind, whole: string): InputIssue | undefined {
  const atom = badAtom(root);
  // The document itself is the bad value: say so, as there is no path to name.
  if (atom !== undefined) return { path: '', message: whole === '' ? atom : `${whole} ${atom}` };
  if (root === null || typeof root !== 'object') return undefined;
  const stack: Frame[] = [{ value: root, depth: 1, parent: undefined, key: '' }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (frame.depth > LIMITS.maxDepth) {
      // The path is as deep as the limit; its start says where, the rest would only be a wall of [0].
      const path = pathOf(frame);
      const shown = path.length > 48 ? `${path.slice(0, 45)}...` : path;
      return { path: shown, message: `nests arrays and objects more than ${LIMITS.maxDepth} levels deep; ${limitText('maxDepth')}` };
    }
    const v = frame.value;
    if (Array.isArray(v)) {
      const limit = arrayLimit(kind, frame);
      if (limit !== undefined && v.length > LIMITS[limit]) return { path: pathOf(frame), message: `has ${grouped(v.length)} items; ${limitText(limit)}` };
    }
    const keys: readonly string[] | undefined = Array.isArray(v) ? undefined : Object.keys(v);
    const n = keys === undefined ? (v as unknown[]).length : keys.length;
    // Children are pushed in reverse so containers are visited in document order.
    const found: InputIssue[] = [];
    for (let i = n - 1; i >= 0; i--) {
      const key: string | number = keys === undefined ? i : keys[i]!;
      const at = (): string => pathOf({ value: v, depth: frame.depth + 1, parent: frame, key });
      if (key === '__proto__') found.push({ path: at(), message: 'a field may not be named "__proto__"' });
      const child = (v as Record<string | number, unknown>)[key];
      if (child !== null && typeof child === 'object') {
        stack.push({ value: child, depth: frame.depth + 1, parent: frame, key });
        continue;
      }
      const bad = badAtom(child);
      if (bad !== undefined) found.push({ path: at(), message: bad });
    }
    // Within one container the earliest key wins; found is in reverse order.
    if (found.length > 0) return found[found.length - 1];
  }
  return undefined;
}

/** What is wrong with a non-container value, if anything. */
function badAtom(v: unknown): string | undefined {
  switch (typeof v) {
    case 'number':
      if (Number.isFinite(v)) return undefined;
      return Number.isNaN(v) ? 'is not a number (NaN)' : 'is a number too large to represent (beyond ±1.8e308)';
    case 'string':
    case 'boolean':
    case 'object':
      return undefined;
    default:
      return `is ${typeof v === 'undefined' ? 'undefined' : `a ${typeof v}`}, which JSON cannot hold`;
  }
}

function pathOf(frame: Frame): string {
  const parts: Array<string | number> = [];
  for (let f: Frame | undefined = frame; f?.parent !== undefined; f = f.parent) parts.push(f.key);
  let out = '';
  for (let i = parts.length - 1; i >= 0; i--) {
    const k = parts[i]!;
    if (typeof k === 'number') out += `[${k}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(k)) out += out === '' ? k : `.${k}`;
    else out += `[${JSON.stringify(k)}]`;
  }
  return out;
}

/**
 * Says where the first syntax error is and what was expected there. The
 * scanner (a loop) first finds where nesting passes the limit; the parser,
 * which recurses, only ever sees the text before that point.
 */
function syntaxError(text: string): string {
  if (text.trim() === '') return 'not valid JSON at line 1, column 1: the file is empty';
  const tooDeepAt = depthOverflowOffset(text);
  const errors: ParseError[] = [];
  parse(tooDeepAt === undefined ? text : text.slice(0, tooDeepAt), errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (first !== undefined && (tooDeepAt === undefined || first.offset < tooDeepAt)) {
    const code = printParseErrorCode(first.error);
    const comma = trailingComma(text, first.offset, code);
    if (comma !== undefined) return `not valid JSON at ${lineColumn(text, comma)}: a trailing comma before '${text[first.offset]}' (JSON allows none)`;
    return `not valid JSON at ${lineColumn(text, first.offset)}: ${WORDS[code] ?? code}`;
  }
  if (tooDeepAt !== undefined)
    return `not valid JSON, and nested more than ${LIMITS.maxDepth} levels deep at ${lineColumn(text, tooDeepAt)}; ${limitText('maxDepth')}`;
  return 'not valid JSON';
}

/**
 * Where the comma is, when the error is a closing bracket or brace right
 * after one (`[1, 2,]`, `{"a": 1,}`): the parser says a value or a property
 * name was expected there, which does not say what to remove.
 */
function trailingComma(text: string, offset: number, code: string): number | undefined {
  if (code !== 'ValueExpected' && code !== 'PropertyNameExpected') return undefined;
  if (text[offset] !== ']' && text[offset] !== '}') return undefined;
  let i = offset - 1;
  while (i >= 0 && /\s/.test(text[i]!)) i--;
  return text[i] === ',' ? i : undefined;
}

/** jsonc-parser's SyntaxKind values (a const enum, which isolated modules cannot read). */
const TOKEN = { openBrace: 1, closeBrace: 2, openBracket: 3, closeBracket: 4, eof: 17 } as const;

function depthOverflowOffset(text: string): number | undefined {
  const scanner = createScanner(text, true);
  let depth = 0;
  for (let token: number = scanner.scan(); token !== TOKEN.eof; token = scanner.scan()) {
    if (token === TOKEN.openBrace || token === TOKEN.openBracket) {
      depth++;
      if (depth > LIMITS.maxDepth) return scanner.getTokenOffset();
    } else if (token === TOKEN.closeBrace || token === TOKEN.closeBracket) {
      depth--;
    }
  }
  return undefined;
}

function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `line ${line}, column ${column}`;
}
