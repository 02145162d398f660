import { Ajv, type ValidateFunction } from 'ajv';
import type { InputIssue } from '../errors.js';
import { joinPath } from './jsonpath.js';
import { LIMITS } from './limits.js';
import { checkWith, describeErrors } from './schema-issues.js';

/**
 * Compiles a JSON Schema with Ajv and turns Ajv's errors into issues that
 * name the JSON path and say what was expected, in words.
 */
export function compileSchema(schema: object): (data: unknown) => InputIssue[] {
  const ajv = new Ajv({ allErrors: true, verbose: true, discriminator: true, strict: false });
  return checkWith(ajv.compile(schema), schema);
}

/**
 * Like compileSchema, for documents with one long list (a trace's events):
 * the list's items are checked one at a time, and once `maxIssuesShown`
 * issues are found the rest of the list is only counted, so a large bad
 * document costs no more memory than a good one.
 */
export function compileListSchema(schema: Record<string, unknown>, list: string): (data: unknown) => { issues: InputIssue[]; more: number } {
  const props = schema.properties as Record<string, { items?: object }>;
  const itemSchema = { ...props[list]!.items, definitions: schema.definitions };
  const outer = compileSchema({ ...schema, properties: { ...props, [list]: { type: 'array' } } });
  const ajv = new Ajv({ allErrors: true, verbose: true, discriminator: true, strict: false });
  const item: ValidateFunction = ajv.compile(itemSchema);
  const quick: ValidateFunction = new Ajv({ allErrors: false, discriminator: true, strict: false }).compile(itemSchema);
  return (data) => {
    const issues = outer(data);
    let more = 0;
    const items = (data as Record<string, unknown> | null)?.[list];
    if (!Array.isArray(items)) return { issues, more };
    for (let i = 0; i < items.length; i++) {
      if (issues.length >= LIMITS.maxIssuesShown) {
        if (!quick(items[i])) more++;
        continue;
      }
      if (item(items[i])) continue;
      for (const issue of describeErrors(item.errors ?? [], itemSchema)) issues.push({ path: joinPath(`${list}[${i}]`, issue.path), message: issue.message });
    }
    return { issues, more };
  };
}

/** The check of one item of a document's long list (a JSON Lines trace's event), its issues' paths relative to the item. */
export function compileItemSchema(schema: Record<string, unknown>, list: string): (item: unknown) => InputIssue[] {
  const props = schema.properties as Record<string, { items?: object }>;
  return compileSchema({ ...props[list]!.items, definitions: schema.definitions });
}
