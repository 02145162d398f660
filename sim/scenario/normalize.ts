import scenarioSchema from '../../docs/schema/scenario.schema.json';
import { InputError, show, type InputIssue } from '../errors.js';
import { compileSchema } from './schema-check.js';
import type { ClientSpec, FaultSpec, MachineSpec, Scenario, StoreSpec } from './types.js';

const checkShape = compileSchema(scenarioSchema);

/* The input as the schema admits it: everything the schema gives a default for may be missing. */
interface Input {
  name: string;
  summary?: string;
  seed?: number;
  budget?: { maxEvents?: number; maxTimeMs?: number };
  machines: Array<{ name: string; clockOffsetMs?: number; clockDriftPpm?: number }>;
  network?: { latencyMinMs?: number; latencyMaxMs?: number; loss?: number };
  store: { kind: 'redis'; name?: string; machine: string; persistence?: StoreSpec['persistence']; fencingTokenStart?: number };
  resource?: { machine?: string; fencing?: boolean };
  clients: ClientInput[];
  faults?: Array<Record<string, unknown> & { kind: FaultSpec['kind'] }>;
}

interface ClientInput {
  name: string;
  machine: string;
  startMs?: number;
  key?: string;
  ttlMs?: number;
  acquire?: Partial<ClientSpec['acquire']>;
  workMs?: number;
  refreshEveryMs?: number | null;
  checkRemaining?: boolean;
  writes?: number;
  release?: Partial<ClientSpec['release']>;
  iterations?: number;
  thinkMs?: number;
  requestTimeoutMs?: number;
}

export const DEFAULT_SEED = 1;

/**
 * Checks a scenario document against the schema and against itself (every
 * name it refers to exists), then fills in every default. Throws an
 * InputError naming `source` and each bad path.
 */
export function normalizeScenario(data: unknown, source: string): Scenario {
  const shapeIssues = checkShape(data);
  if (shapeIssues.length > 0) throw new InputError(source, shapeIssues);
  const input = data as Input;

  const machines: MachineSpec[] = input.machines.map((m) => ({
    name: m.name,
    clockOffsetMs: m.clockOffsetMs ?? 0,
    clockDriftPpm: m.clockDriftPpm ?? 0,
  }));
  const store: StoreSpec = {
    kind: 'redis',
    name: input.store.name ?? 'redis',
    machine: input.store.machine,
    persistence: input.store.persistence ?? 'none',
    fencingTokenStart: input.store.fencingTokenStart ?? 1,
  };
  const clients: ClientSpec[] = input.clients.map((c) => ({
    name: c.name,
    machine: c.machine,
    startMs: c.startMs ?? 0,
    key: c.key ?? 'job',
    ttlMs: c.ttlMs ?? 300_000,
    acquire: {
      mode: c.acquire?.mode ?? 'try',
      method: c.acquire?.method ?? 'atomic',
      retries: c.acquire?.retries ?? 0,
      retryDelayMs: c.acquire?.retryDelayMs ?? 100,
      waitTimeoutMs: c.acquire?.waitTimeoutMs ?? null,
    },
    workMs: c.workMs ?? 100,
    refreshEveryMs: c.refreshEveryMs ?? null,
    checkRemaining: c.checkRemaining ?? false,
    writes: c.writes ?? 1,
    release: { method: c.release?.method ?? 'token-checked', inFinally: c.release?.inFinally ?? true },
    iterations: c.iterations ?? 1,
    thinkMs: c.thinkMs ?? 0,
    requestTimeoutMs: c.requestTimeoutMs ?? 1000,
  }));
  const faults = (input.faults ?? []).map((f) => normalizeFault(f));

  const scenario: Scenario = {
    name: input.name,
    summary: input.summary ?? '',
    seed: input.seed ?? DEFAULT_SEED,
    budget: { maxEvents: input.budget?.maxEvents ?? 1_000_000, maxTimeMs: input.budget?.maxTimeMs ?? 3_600_000 },
    machines,
    network: {
      latencyMinMs: input.network?.latencyMinMs ?? 0.5,
      latencyMaxMs: input.network?.latencyMaxMs ?? 2,
      loss: input.network?.loss ?? 0,
    },
    store,
    resource: { machine: input.resource?.machine ?? store.machine, fencing: input.resource?.fencing ?? false },
    clients,
    faults,
  };
  const refIssues = checkReferences(scenario);
  if (refIssues.length > 0) throw new InputError(source, refIssues);
  return scenario;
}

function normalizeFault(f: Record<string, unknown> & { kind: FaultSpec['kind'] }): FaultSpec {
  if (f.kind === 'latency-spike')
    return { ...(f as Omit<Extract<FaultSpec, { kind: 'latency-spike' }>, 'machines'>), machines: (f.machines as string[] | null | undefined) ?? null };
  return f as unknown as FaultSpec;
}

/** Every name a scenario uses must be defined, once. */
function checkReferences(s: Scenario): InputIssue[] {
  const issues: InputIssue[] = [];
  const machineNames = s.machines.map((m) => m.name);
  const clientNames = s.clients.map((c) => c.name);
  const machines = new Set(machineNames);
  const clients = new Set(clientNames);
  const list = (names: readonly string[]): string => names.join(', ');

  const duplicates = (names: readonly string[], path: string, what: string): void => {
    const seen = new Set<string>();
    names.forEach((n, i) => {
      if (seen.has(n)) issues.push({ path: `${path}[${i}].name`, message: `${what} ${show(n)} is defined twice` });
      seen.add(n);
    });
  };
  duplicates(machineNames, 'machines', 'machine');
  duplicates(clientNames, 'clients', 'client');

  const machineRef = (name: string, path: string): void => {
    if (!machines.has(name)) issues.push({ path, message: `no machine named ${show(name)} (machines: ${list(machineNames)})` });
  };
  machineRef(s.store.machine, 'store.machine');
  machineRef(s.resource.machine, 'resource.machine');
  if (clients.has(s.store.name)) issues.push({ path: 'store.name', message: `${show(s.store.name)} is already a client's name` });
  s.clients.forEach((c, i) => machineRef(c.machine, `clients[${i}].machine`));
  if (s.network.latencyMinMs > s.network.latencyMaxMs) {
    issues.push({ path: 'network.latencyMaxMs', message: `must be at least latencyMinMs (${s.network.latencyMinMs}), got ${s.network.latencyMaxMs}` });
  }

  s.faults.forEach((f, i) => {
    const at = `faults[${i}]`;
    switch (f.kind) {
      case 'pause':
      case 'crash':
        if (!clients.has(f.target)) issues.push({ path: `${at}.target`, message: `no client named ${show(f.target)} (clients: ${list(clientNames)})` });
        break;
      case 'store-restart':
        if (f.target !== s.store.name) issues.push({ path: `${at}.target`, message: `no store node named ${show(f.target)} (store nodes: ${s.store.name})` });
        break;
      case 'partition':
        f.groups.forEach((g, gi) => g.forEach((m, mi) => machineRef(m, `${at}.groups[${gi}][${mi}]`)));
        break;
      case 'clock-jump':
      case 'clock-drift':
        machineRef(f.machine, `${at}.machine`);
        break;
      case 'latency-spike':
        f.machines?.forEach((m, mi) => machineRef(m, `${at}.machines[${mi}]`));
        break;
    }
  });
  return issues;
}
