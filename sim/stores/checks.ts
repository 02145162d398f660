import { show } from '../errors.js';
import type { StoreCheck } from './types.js';

/** Reports `name` at `store.<field>` unless the scenario defines a machine of that name. */
export function machineRef(check: StoreCheck, name: string, field: string): void {
  const names = check.scenario.machines.map((m) => m.name);
  if (!names.includes(name)) check.issues.push({ path: `${check.path}.${field}`, message: `no machine named ${show(name)} (machines: ${names.join(', ')})` });
}
