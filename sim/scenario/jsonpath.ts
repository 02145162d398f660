/** A field name as a path step: `.ttlMs`, or `[""]` / `["a b"]` for names a dot cannot carry. */
function step(out: string, key: string): string {
  if (/^[A-Za-z_$][\w$-]*$/.test(key)) return out === '' ? key : `${out}.${key}`;
  return `${out}[${JSON.stringify(key)}]`;
}

/** Turns a JSON Pointer (`/clients/0/ttlMs`) into the path people read (`clients[0].ttlMs`). */
export function pointerToPath(pointer: string): string {
  if (pointer === '') return '';
  let out = '';
  for (const raw of pointer.slice(1).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out = /^\d+$/.test(part) ? `${out}[${part}]` : step(out, part);
  }
  return out;
}

/** The path of field `key` inside the value at `parent`; every key, even an empty one, gets a step of its own. */
export function fieldPath(parent: string, key: string): string {
  return step(parent, key);
}

export function joinPath(parent: string, child: string): string {
  if (parent === '') return child;
  if (child === '') return parent;
  return /^\[/.test(child) ? parent + child : `${parent}.${child}`;
}
