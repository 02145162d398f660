/** Turns a JSON Pointer (`/clients/0/ttlMs`) into the path people read (`clients[0].ttlMs`). */
export function pointerToPath(pointer: string): string {
  if (pointer === '') return '';
  let out = '';
  for (const raw of pointer.slice(1).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(part)) out += `[${part}]`;
    else out += out === '' ? part : `.${part}`;
  }
  return out;
}

export function joinPath(parent: string, child: string): string {
  if (parent === '') return child;
  if (child === '') return parent;
  return /^\[/.test(child) ? parent + child : `${parent}.${child}`;
}
