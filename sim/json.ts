import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { InputError } from './errors.js';

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

/**
 * Parses strict JSON (no comments, no trailing commas). On a syntax error it
 * throws an InputError that names the source, the line and the column, and
 * says what was expected there.
 */
export function parseJson(text: string, source: string): unknown {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (first === undefined) return value;
  const before = text.slice(0, first.offset);
  const line = before.split('\n').length;
  const column = first.offset - before.lastIndexOf('\n');
  const code = printParseErrorCode(first.error);
  const what = text.trim() === '' ? 'the file is empty' : (WORDS[code] ?? code);
  throw new InputError(source, [{ path: '', message: `not valid JSON at line ${line}, column ${column}: ${what}` }]);
}
