import type { NodeRef } from '../runtime/types.js';
import type { Scenario, StoreSpecBase } from '../scenario/types.js';

/*
 * A deploy that moves some clients to another server (C68: every process
 * must use the same server, or two of them can hold the same lock). The
 * store gets a node on each machine a deploy names, with the same settings,
 * and the moved clients' drivers talk to it from the deploy on.
 */

/** The name of the server a deploy moves clients to: the store's name at that machine. */
export function deployedNodeName(name: string, machine: string): string {
  return `${name}@${machine}`;
}

/** The store's own server, then one per other machine that a deploy moves clients to. */
export function deployNodes(spec: StoreSpecBase, scenario: Pick<Scenario, 'faults'> | undefined): Array<{ name: string; machine: string }> {
  const home = spec.machine as string;
  const out = [{ name: spec.name, machine: home }];
  for (const f of scenario?.faults ?? []) {
    if (f.kind !== 'deploy') continue;
    const m = f.store.machine;
    if (typeof m === 'string' && !out.some((n) => n.machine === m)) out.push({ name: deployedNodeName(spec.name, m), machine: m });
  }
  return out;
}

/** How a driver finds its server after a deploy: the patch's machine names it (undefined: the deploy did not move it). */
export function deployedNodeFor(spec: StoreSpecBase): (patch: Record<string, unknown>) => NodeRef | undefined {
  return (patch) => {
    const m = patch.machine;
    if (typeof m !== 'string') return undefined;
    return { name: m === spec.machine ? spec.name : deployedNodeName(spec.name, m) };
  };
}

/**
 * The spec a store node of `spec` runs with: the spec itself for the node at
 * its home, else a copy naming the node a deploy moved it to. No node writes
 * to its spec, and most runs deploy nothing, so a run builds no copy.
 */
export function nodeSpec<S extends StoreSpecBase>(spec: S, node: { name: string; machine: string }): S {
  return node.name === spec.name && node.machine === spec.machine ? spec : { ...spec, name: node.name, machine: node.machine };
}
