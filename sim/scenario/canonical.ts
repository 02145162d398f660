import type { FaultSpec, StoreSpecBase } from './types.js';
import { faultSchema } from './schema.js';

/*
 * A trace holds the scenario it ran, so its bytes must not depend on the
 * order in which the input document happened to list keys. Everything the
 * normalizer builds field by field is canonical already; these rebuild the
 * parts that were passed through as given.
 */

/** A fault (already valid) rebuilt in its schema's field order, with the schema's defaults filled in. */
export function canonicalFault(f: Record<string, unknown> & { kind: string }): FaultSpec {
  const schema = faultSchema(f.kind);
  if (schema === undefined) return f as unknown as FaultSpec;
  const out: Record<string, unknown> = {};
  for (const [field, prop] of Object.entries(schema.properties)) {
    if (Object.hasOwn(f, field)) out[field] = f[field];
    else if (prop.default !== undefined) out[field] = sortedKeys(prop.default);
  }
  return out as unknown as FaultSpec;
}

/**
 * A deploy's store patch in the order of the store's own fields, with any
 * nested object's keys sorted: the patch names only fields the store has
 * (the scenario check makes sure), so nothing is lost.
 */
export function canonicalPatch(patch: Record<string, unknown>, store: StoreSpecBase): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of Object.keys(store)) if (Object.hasOwn(patch, field)) out[field] = sortedKeys(patch[field]);
  return out;
}

/** A JSON value with every object's keys in sorted order, rebuilt with a loop (values may nest up to the reader's depth limit). */
function sortedKeys(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const root: { v?: unknown } = {};
  const stack: Array<{ from: unknown; into: Record<string | number, unknown>; slot: string | number }> = [{ from: value, into: root, slot: 'v' }];
  while (stack.length > 0) {
    const { from, into, slot } = stack.pop()!;
    if (from === null || typeof from !== 'object') {
      into[slot] = from;
    } else if (Array.isArray(from)) {
      const copy: unknown[] = new Array<unknown>(from.length);
      into[slot] = copy;
      from.forEach((item, i) => stack.push({ from: item, into: copy as unknown as Record<number, unknown>, slot: i }));
    } else {
      const copy: Record<string, unknown> = {};
      into[slot] = copy;
      const keys = Object.keys(from).sort();
      // Keys are assigned when their values are popped; create them now so they keep sorted order.
      for (const k of keys) copy[k] = null;
      for (const k of keys) stack.push({ from: (from as Record<string, unknown>)[k], into: copy, slot: k });
    }
  }
  return root.v;
}
