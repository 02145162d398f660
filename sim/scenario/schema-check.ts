import { Ajv, type ValidateFunction } from 'ajv';
import type { InputIssue } from '../errors.js';
import { checkListWith, checkWith, listParts } from './schema-issues.js';

/**
 * Compiles a JSON Schema with Ajv and turns Ajv's errors into issues that
 * name the JSON path and say what was expected, in words.
 */
export function compileSchema(schema: object): (data: unknown) => InputIssue[] {
  const ajv = new Ajv({ allErrors: true, verbose: true, discriminator: true, strict: false });
  return checkWith(ajv.compile(schema), schema);
}

/** Like compileSchema, for documents with one long list (a trace's events): see `checkListWith`. */
export function compileListSchema(schema: Record<string, unknown>, list: string): (data: unknown) => { issues: InputIssue[]; more: number } {
  const { outer, item } = listParts(schema, list);
  const full: ValidateFunction = new Ajv({ allErrors: true, verbose: true, discriminator: true, strict: false }).compile(item);
  return checkListWith(compileSchema(outer), full, item, list, quickCompiler(item));
}

/**
 * A validator of `schema` that stops at its first error, for counting bad
 * items past the ones listed: compiled when first asked for, as most
 * documents never have that many issues.
 */
export function quickCompiler(schema: object): () => ValidateFunction {
  let quick: ValidateFunction | undefined;
  return () => (quick ??= new Ajv({ allErrors: false, discriminator: true, strict: false }).compile(schema));
}
