import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { janitor, signalGroup } from './cleanup.js';

/** How to start one server program. */
export interface Launch {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** Added to the harness's own environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** Run as this user (PostgreSQL refuses to run as root). */
  readonly uid?: number;
  readonly gid?: number;
  /** Where the server's output goes; named in every failure. */
  readonly logFile: string;
}

/** A server could not start or stop: the message names its log. */
export class ServerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServerError';
  }
}

/** The last lines of a log, for a failure message. */
export function logTail(file: string, lines = 5): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log written)';
  }
}

/**
 * One server program as a process group of its own, started from a `Launch`
 * and judged ready by `ready`. It can be stopped, killed, paused with
 * SIGSTOP, resumed and restarted; the janitor knows of it while it runs.
 */
export class ServerProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private paused = false;

  constructor(
    readonly label: string,
    private readonly launch: () => Launch,
    private readonly ready: () => Promise<boolean>,
    private readonly readyTimeoutMs = 30_000,
    private readonly stopSignal: NodeJS.Signals = 'SIGTERM',
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  get logFile(): string {
    return this.launch().logFile;
  }

  async start(): Promise<void> {
    if (this.running) return;
    const l = this.launch();
    const log = openSync(l.logFile, 'a');
    let child: ChildProcess;
    try {
      child = spawn(l.command, l.args, {
        cwd: l.cwd,
        env: { ...process.env, ...l.env },
        detached: true,
        stdio: ['ignore', log, log],
        ...(l.uid === undefined ? {} : { uid: l.uid }),
        ...(l.gid === undefined ? {} : { gid: l.gid }),
      });
    } finally {
      closeSync(log);
    }
    this.child = child;
    this.paused = false;
    const pid = child.pid;
    let spawnError: Error | undefined;
    child.on('error', (err) => {
      spawnError = err;
    });
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    if (pid !== undefined) janitor.trackGroup(pid, l.command);
    void this.exited.then(() => {
      if (pid !== undefined) janitor.untrackGroup(pid);
    });
    const deadline = Date.now() + this.readyTimeoutMs;
    for (;;) {
      if (spawnError !== undefined) throw new ServerError(`${this.label}: cannot start ${l.command}: ${spawnError.message}`);
      if (!this.running) {
        throw new ServerError(
          `${this.label} exited while starting (code ${child.exitCode ?? child.signalCode}); see its log ${l.logFile}:\n${logTail(l.logFile)}`,
        );
      }
      if (await this.ready().catch(() => false)) return;
      if (Date.now() > deadline) {
        await this.kill();
        throw new ServerError(`${this.label} did not become ready within ${this.readyTimeoutMs} ms; see its log ${l.logFile}:\n${logTail(l.logFile)}`);
      }
      await sleep(25);
    }
  }

  /** A clean shutdown (the server's own stop signal), killed if it takes longer than `graceMs`. */
  async stop(graceMs = 5_000): Promise<void> {
    const pid = this.child?.pid;
    if (pid === undefined || !this.running) return;
    if (this.paused) this.resume();
    signalGroup(pid, this.stopSignal);
    const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** SIGKILL: the server dies at once, losing whatever it kept only in memory. */
  async kill(): Promise<void> {
    const pid = this.child?.pid;
    if (pid === undefined || !this.running) return;
    signalGroup(pid, 'SIGKILL');
    await this.exited;
    this.paused = false;
  }

  /** SIGSTOP: the server stops answering but keeps its connections open. */
  pause(): void {
    const pid = this.child?.pid;
    if (pid === undefined || !this.running) return;
    signalGroup(pid, 'SIGSTOP');
    this.paused = true;
  }

  resume(): void {
    const pid = this.child?.pid;
    if (pid === undefined || !this.running) return;
    signalGroup(pid, 'SIGCONT');
    this.paused = false;
  }
}
