import type { InputIssue } from '../../sim/errors.js';
import type { FileWhat } from './classify.js';
import type { ScenarioInput, TracePayload, WorkerReply, WorkerRequest } from './protocol.js';

/** The worker's answer when the input was wrong: where and what, never a stack trace. */
export class WorkerInputError extends Error {
  constructor(
    readonly source: string,
    readonly issues: readonly InputIssue[],
    /** For a file: what it appears to be. */
    readonly what?: FileWhat,
  ) {
    super(issues.map((i) => `${source}${i.path === '' ? '' : `: ${i.path}`}: ${i.message}`).join('\n'));
    this.name = 'WorkerInputError';
  }
}

type Pending = { resolve: (r: WorkerReply) => void };
type Body<T> = T extends unknown ? Omit<T, 'id'> : never;

/**
 * A promise-shaped handle on the simulation worker. One worker serves the
 * whole page; requests are answered in order, so a long run delays the next.
 */
export class SimClient {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor() {
    this.worker = new Worker(new URL('./sim.worker.ts', import.meta.url), { type: 'module', name: 'locklab-sim' });
    this.worker.onmessage = (ev: MessageEvent<WorkerReply>) => {
      const p = this.pending.get(ev.data.id);
      this.pending.delete(ev.data.id);
      p?.resolve(ev.data);
    };
  }

  private call(body: Body<WorkerRequest>): Promise<WorkerReply> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, { resolve });
      this.worker.postMessage({ ...body, id } as WorkerRequest);
    });
  }

  async run(scenario: ScenarioInput, seed: number | null, overrides: readonly string[]): Promise<TracePayload> {
    const r = await this.call({ type: 'run', scenario, seed, overrides });
    if (!r.ok) throw new WorkerInputError(r.source, r.issues, r.what);
    if (r.type !== 'trace') throw new Error('worker answered a run with something else');
    return r.trace;
  }

  async normalize(scenario: ScenarioInput, overrides: readonly string[] = []): Promise<unknown> {
    const r = await this.call({ type: 'normalize', scenario, overrides });
    if (!r.ok) throw new WorkerInputError(r.source, r.issues, r.what);
    if (r.type !== 'scenario') throw new Error('worker answered a normalize with something else');
    return r.scenario;
  }

  async loadTrace(text: string, fileName: string): Promise<TracePayload> {
    const r = await this.call({ type: 'load-trace', text, fileName });
    if (!r.ok) throw new WorkerInputError(r.source, r.issues, r.what);
    if (r.type !== 'trace') throw new Error('worker answered a load with something else');
    return r.trace;
  }
}

let shared: SimClient | null = null;

/** The page's one simulation worker, started on first use so the first paint does not wait for it. */
export function sim(): SimClient {
  shared ??= new SimClient();
  return shared;
}
