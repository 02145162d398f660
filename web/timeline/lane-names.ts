import type { Lane } from './layout.js';

/**
 * A lane's name, where it runs ("on app1" for a client, "@db" for a store
 * or the resource) and the two as one line. A store of one machine's
 * kernel is named after it (flock@app1), so its machine is not said twice.
 */
export function laneNames(l: Pick<Lane, 'id' | 'kind' | 'name' | 'machine'>): { name: string; where: string; full: string } {
  const pair = l.id === 'resource-pair';
  const name = l.kind === 'resource' && !pair ? 'resource' : l.name;
  const where = l.machine === '' || pair ? '' : l.kind === 'client' ? `on ${l.machine}` : `@${l.machine}`;
  const full = where === '' || (l.kind !== 'client' && name.endsWith(where)) ? name : `${name} ${where}`;
  return { name, where, full };
}
