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
 * Every request is answered: should the worker itself die (out of memory,
 * say), each waiting request gets that as its answer and the next request
 * starts a fresh worker.
 */
export class SimClient {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  private start(): Worker {
    const worker = new Worker(new URL('./sim.worker.ts', import.meta.url), { type: 'module', name: 'locklab-sim' });
    worker.onmessage = (ev: MessageEvent<WorkerReply>) => {
      const p = this.pending.get(ev.data.id);
      this.pending.delete(ev.data.id);
      p?.resolve(ev.data);
    };
    const died = (what: string) => {
      worker.terminate();
      if (this.worker === worker) this.worker = null;
      for (const [id, p] of this.pending) p.resolve({ id, ok: false, source: 'simulation', issues: [{ path: '', message: what }] });
      this.pending.clear();
    };
    worker.onerror = (ev: ErrorEvent) => {
      ev.preventDefault();
      died(`the simulation stopped unexpectedly${ev.message ? `: ${ev.message}` : ''}; try again, or with a smaller input`);
    };
    worker.onmessageerror = () => died('the simulation sent an answer the page could not read');
    return worker;
  }

  /**
   * Starts the worker before its first request, so that the request does not
   * wait for the simulation to load (about a third of a second here). A
   * worker that cannot start is reported by that request.
   */
  warm(): void {
    try {
      this.worker ??= this.start();
    } catch {
      // Left for the first request, which answers with why.
    }
  }

  private call(body: Body<WorkerRequest>): Promise<WorkerReply> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, { resolve });
      try {
        this.worker ??= this.start();
        this.worker.postMessage({ ...body, id } as WorkerRequest);
      } catch (err) {
        this.pending.delete(id);
        resolve({
          id,
          ok: false,
          source: 'lab',
          issues: [{ path: '', message: `cannot hand this to the simulation: ${String((err as Error).message ?? err)}` }],
        });
      }
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

  async loadTrace(file: Blob, fileName: string): Promise<TracePayload> {
    const r = await this.call({ type: 'load-trace', file, fileName });
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
