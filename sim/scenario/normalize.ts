import { sizeField, type Distribution } from '../kernel/dist.js';
import { InputError, show, type InputIssue } from '../errors.js';
import { checkJsonValue } from '../json.js';
import { storeKind } from '../stores/registry.js';
import { canonicalFault, canonicalPatch } from './canonical.js';
import type { ValidateFunction } from 'ajv';
import { checkWith } from './schema-issues.js';
import * as precompiled from './validators.generated.js';
import { scenarioSchema, storeDefinition } from './schema.js';
import { checkSteps, forEachStep, normalizeSteps } from './steps.js';
import {
  GENERIC_FAULTS,
  WORK_MS_DEFAULT,
  type ClientSpec,
  type FaultSpec,
  type LatencyDistribution,
  type MachineSpec,
  type Scenario,
  type StoreSpecBase,
} from './types.js';

let checkShape: ((data: unknown) => InputIssue[]) | undefined;

/* The input as the schema admits it: everything the schema gives a default for may be missing. */
interface Input {
  name: string;
  summary?: string;
  seed?: number;
  budget?: { maxEvents?: number; maxTimeMs?: number };
  machines: Array<{ name: string; clockOffsetMs?: number; clockDriftPpm?: number }>;
  network?: { latencyMinMs?: number; latencyMaxMs?: number; distribution?: LatencyDistribution; loss?: number };
  store: Record<string, unknown> & { kind: string };
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
  workTime?: Distribution;
  pauseAfterAcquire?: { probability: number; duration: Distribution };
  crashRatePerS?: number;
  refreshEveryMs?: number | null;
  checkRemaining?: boolean;
  writes?: number;
  release?: Partial<ClientSpec['release']>;
  iterations?: number;
  thinkMs?: number;
  requestTimeoutMs?: number;
  steps?: Array<Record<string, unknown> & { step: import('./steps.js').StepName }> | null;
  autoRelease?: boolean;
}

export const DEFAULT_SEED = 1;

/**
 * Checks a scenario document against the schema and against itself (every
 * name it refers to exists), then fills in every default. Throws an
 * InputError naming `source` and each bad path.
 */
export function normalizeScenario(data: unknown, source: string): Scenario {
  // The rules of the JSON reader hold for values from code too (the library, the lab's forms).
  checkJsonValue(data, source, 'scenario');
  // Made on first use: the store registry must be complete by then. The validator was compiled at build time (npm run validators).
  checkShape ??= checkWith(precompiled.scenario, scenarioSchema());
  const shapeIssues = checkShape(data);
  if (shapeIssues.length > 0) throw new InputError(source, shapeIssues);
  const input = data as Input;

  const machines: MachineSpec[] = input.machines.map((m) => ({
    name: m.name,
    clockOffsetMs: m.clockOffsetMs ?? 0,
    clockDriftPpm: m.clockDriftPpm ?? 0,
  }));
  const clients: ClientSpec[] = input.clients.map((c) => ({
    name: c.name,
    machine: c.machine,
    startMs: c.startMs ?? 0,
    key: c.key ?? 'job',
    ttlMs: c.ttlMs ?? 300_000,
    acquire: {
      mode: c.acquire?.mode ?? 'try',
      shared: c.acquire?.shared ?? false,
      poll: c.acquire?.poll ?? true,
      method: c.acquire?.method ?? 'atomic',
      retries: c.acquire?.retries ?? 0,
      retryDelayMs: c.acquire?.retryDelayMs ?? 100,
      waitTimeoutMs: c.acquire?.waitTimeoutMs ?? null,
    },
    workMs: c.workMs ?? WORK_MS_DEFAULT,
    // Left out unless given, so that scenarios without them (and their run hashes) are unchanged.
    ...(c.workTime === undefined ? {} : { workTime: inOrder(c.workTime) }),
    ...(c.pauseAfterAcquire === undefined
      ? {}
      : { pauseAfterAcquire: { probability: c.pauseAfterAcquire.probability, duration: inOrder(c.pauseAfterAcquire.duration) } }),
    ...(c.crashRatePerS === undefined || c.crashRatePerS === 0 ? {} : { crashRatePerS: c.crashRatePerS }),
    refreshEveryMs: c.refreshEveryMs ?? null,
    checkRemaining: c.checkRemaining ?? false,
    writes: c.writes ?? 1,
    release: { method: c.release?.method ?? 'token-checked', inFinally: c.release?.inFinally ?? true },
    iterations: c.iterations ?? 1,
    thinkMs: c.thinkMs ?? 0,
    requestTimeoutMs: c.requestTimeoutMs ?? 1000,
    steps: c.steps === undefined || c.steps === null ? null : normalizeSteps(c.steps),
    autoRelease: c.autoRelease ?? true,
  }));
  const stepIssues: InputIssue[] = [];
  clients.forEach((c, i) => checkClientForm(c, `clients[${i}]`, stepIssues));
  if (stepIssues.length > 0) throw new InputError(source, stepIssues);
  // Faults are rebuilt in the schema's field order, so the trace does not depend on the input's key order.
  const faults = (input.faults ?? []).map((f) => canonicalFault(f));

  const kind = storeKind(input.store.kind)!;
  const rest = {
    name: input.name,
    summary: input.summary ?? '',
    seed: input.seed ?? DEFAULT_SEED,
    budget: { maxEvents: input.budget?.maxEvents ?? 1_000_000, maxTimeMs: input.budget?.maxTimeMs ?? 3_600_000 },
    machines,
    network: {
      latencyMinMs: input.network?.latencyMinMs ?? 0.5,
      latencyMaxMs: input.network?.latencyMaxMs ?? 2,
      distribution: input.network?.distribution ?? 'uniform',
      loss: input.network?.loss ?? 0,
    },
    clients,
    faults,
  };
  const storeIssues: InputIssue[] = [];
  const store: StoreSpecBase = kind.normalize(input.store, {
    scenario: { ...rest, resource: { machine: '', fencing: false } },
    path: 'store',
    issues: storeIssues,
  });
  if (storeIssues.length > 0) throw new InputError(source, storeIssues);
  const defaultMachine = typeof store.machine === 'string' ? store.machine : (machines[machines.length - 1]?.name ?? '');
  const scenario: Scenario = {
    name: rest.name,
    summary: rest.summary,
    seed: rest.seed,
    budget: rest.budget,
    machines,
    network: rest.network,
    store,
    resource: { machine: input.resource?.machine ?? defaultMachine, fencing: input.resource?.fencing ?? false },
    clients,
    faults,
  };
  const refIssues = checkReferences(scenario);
  if (refIssues.length > 0) throw new InputError(source, refIssues);
  scenario.faults = faults.map((f) => (f.kind === 'deploy' ? { ...f, store: canonicalPatch(f.store, store) } : f));
  return scenario;
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
  machineRef(s.resource.machine, 'resource.machine');
  const kind = storeKind(s.store.kind)!;
  const nodeNames = kind.nodeNames(s.store, s);
  for (const n of nodeNames) if (clients.has(n)) issues.push({ path: 'store.name', message: `${show(n)} is both a store node's and a client's name` });
  s.clients.forEach((c, i) => {
    machineRef(c.machine, `clients[${i}].machine`);
    checkClientAgainstStore(c, `clients[${i}]`, s.store, issues);
  });
  if (s.network.latencyMinMs > s.network.latencyMaxMs) {
    issues.push({ path: 'network.latencyMaxMs', message: `must be at least latencyMinMs (${s.network.latencyMinMs}), got ${s.network.latencyMaxMs}` });
  }

  s.faults.forEach((f, i) => {
    const at = `faults[${i}]`;
    if (!GENERIC_FAULTS.includes(f.kind) && !kind.faults.includes(f.kind)) {
      issues.push({
        path: `${at}.kind`,
        message: `the ${kind.kind} store has no fault ${show(f.kind)} (it takes: ${list([...GENERIC_FAULTS, ...kind.faults])})`,
      });
      return;
    }
    switch (f.kind) {
      case 'pause':
      case 'crash':
        if (!clients.has(f.target)) issues.push({ path: `${at}.target`, message: `no client named ${show(f.target)} (clients: ${list(clientNames)})` });
        break;
      case 'store-restart':
      case 'eviction':
      case 'memory-pressure':
        if (!nodeNames.includes(f.target))
          issues.push({ path: `${at}.target`, message: `no store node named ${show(f.target)} (store nodes: ${list(nodeNames)})` });
        break;
      case 'session-expiry':
      case 'connection-loss':
        if (!clients.has(f.target)) issues.push({ path: `${at}.target`, message: `no client named ${show(f.target)} (clients: ${list(clientNames)})` });
        break;
      case 'ipc-removal':
      case 'lock-file-cleanup':
        machineRef(f.machine, `${at}.machine`);
        break;
      case 'deploy':
        f.clients.forEach((c, ci) => {
          if (!clients.has(c)) issues.push({ path: `${at}.clients[${ci}]`, message: `no client named ${show(c)} (clients: ${list(clientNames)})` });
        });
        checkDeployPatch(f.store, `${at}.store`, s.store, issues);
        if (typeof f.store.machine === 'string') machineRef(f.store.machine, `${at}.store.machine`);
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

/** The lifecycle fields of a client and their defaults: with `steps` they must keep them, since the steps replace them. */
export const LIFECYCLE_DEFAULTS: ReadonlyArray<[keyof ClientSpec, unknown]> = [
  ['acquire', { mode: 'try', shared: false, poll: true, method: 'atomic', retries: 0, retryDelayMs: 100, waitTimeoutMs: null }],
  ['workMs', WORK_MS_DEFAULT],
  ['refreshEveryMs', null],
  ['checkRemaining', false],
  ['writes', 1],
  ['release', { method: 'token-checked', inFinally: true }],
  ['iterations', 1],
  ['thinkMs', 0],
];

/** A distribution with its fields in the schema's order, whatever order the input gave them in: the trace carries the scenario, byte for byte. */
function inOrder(d: Distribution): Distribution {
  switch (d.distribution) {
    case 'fixed':
      return { distribution: 'fixed', ms: d.ms };
    case 'exponential':
      return { distribution: 'exponential', meanMs: d.meanMs };
    default:
      return { distribution: d.distribution, minMs: d.minMs, maxMs: d.maxMs };
  }
}

/** A client with steps gives no lifecycle fields (they would mean a second script), and its steps are well formed. */
function checkClientForm(c: ClientSpec, at: string, issues: InputIssue[]): void {
  // A drawn work time replaces workMs, so a workMs beside it would be silently unused (and a sweep over it a flat line).
  if (c.workTime !== undefined && c.workMs !== WORK_MS_DEFAULT)
    issues.push({
      path: `${at}.workMs`,
      message: `${c.name}'s work time is drawn from workTime, so workMs is not used: change workTime instead (${at}.workTime.${sizeField(c.workTime)})`,
    });
  if (c.steps === null) return;
  for (const [field, fallback] of LIFECYCLE_DEFAULTS) {
    if (JSON.stringify(c[field]) !== JSON.stringify(fallback))
      issues.push({ path: `${at}.${field}`, message: `a client with steps has no ${field}: say it with steps instead (see docs/scenarios.md)` });
  }
  for (const field of ['workTime', 'pauseAfterAcquire'] as const) {
    if (c[field] !== undefined)
      issues.push({ path: `${at}.${field}`, message: `a client with steps has no ${field}: say it with steps instead (see docs/scenarios.md)` });
  }
  checkSteps(c.steps, `${at}.steps`, issues);
}

/**
 * What a store cannot do is not refused here: a shared lock on a store
 * without them is an exclusive one, and a wait the store cannot do fails at
 * run time, as Symfony fails. Only the hand-written mistakes need the plain
 * commands some stores have.
 */
function checkClientAgainstStore(c: ClientSpec, at: string, store: StoreSpecBase, issues: InputIssue[]): void {
  const kind = storeKind(store.kind)!;
  if (c.acquire.shared && c.writes > 0) issues.push({ path: `${at}.writes`, message: 'a client holding a shared (read) lock only reads: set writes to 0' });
  if (kind.plainGetSet) return;
  const noGetSet = `the ${kind.kind} store has no plain GET and SET to get wrong; use "atomic"`;
  const noDel = `the ${kind.kind} store has no plain DEL; use "token-checked"`;
  if (c.acquire.method === 'exists-then-set') issues.push({ path: `${at}.acquire.method`, message: noGetSet });
  if (c.release.method === 'plain-del') issues.push({ path: `${at}.release.method`, message: noDel });
  forEachStep(c.steps ?? [], `${at}.steps`, (s, path) => {
    if ((s.step === 'acquire' || s.step === 'acquireRead') && s.method === 'exists-then-set') issues.push({ path: `${path}.method`, message: noGetSet });
    if (s.step === 'release' && s.method === 'plain-del') issues.push({ path: `${path}.method`, message: noDel });
  });
}

const storeShapes = new Map<string, (data: unknown) => InputIssue[]>();

/** A deploy's patch may only name fields the store has, with values its schema accepts. */
function checkDeployPatch(patch: Record<string, unknown>, at: string, store: StoreSpecBase, issues: InputIssue[]): void {
  let ok = true;
  const deployable = storeKind(store.kind)!.deployable ?? [];
  for (const field of Object.keys(patch)) {
    if (field === 'kind' || field === 'name' || !Object.hasOwn(store, field)) {
      const fields = Object.keys(store).filter((f) => f !== 'kind' && f !== 'name');
      issues.push({ path: `${at}.${field}`, message: `a deploy cannot change ${show(field)} of the ${store.kind} store (fields: ${fields.join(', ')})` });
      ok = false;
    } else if (!deployable.includes(field)) {
      // A deploy gives some clients new settings; a field no client's library reads would be announced and ignored.
      issues.push({
        path: `${at}.${field}`,
        message: `a deploy cannot change ${show(field)} of the ${store.kind} store: it is the server's own setting, not the clients' (a deploy may change: ${deployable.join(', ') || 'nothing'})`,
      });
      ok = false;
    }
  }
  if (!ok) return;
  let shape = storeShapes.get(store.kind);
  if (shape === undefined) {
    // The scenario schema's own definition of the store kind, precompiled: a deploy does not load Ajv either.
    shape = checkWith((precompiled as unknown as Record<string, ValidateFunction>)[storeDefinition(store.kind)]!, scenarioSchema());
    storeShapes.set(store.kind, shape);
  }
  for (const issue of shape({ ...store, ...patch })) issues.push({ path: issue.path === '' ? at : `${at}.${issue.path}`, message: issue.message });
}
