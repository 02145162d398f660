import { mkdtempSync, renameSync, rmSync, writeFileSync, chownSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { faketimeLibrary } from './binaries.js';
import { janitor } from './cleanup.js';
import type { ServerProcess } from './server-process.js';

/** A temporary directory the janitor removes whatever happens. */
export function tempDir(prefix: string, owner?: { uid: number; gid: number }): string {
  const dir = mkdtempSync(join(tmpdir(), `locklab-${prefix}-`));
  janitor.trackDir(dir);
  if (owner !== undefined) chownSync(dir, owner.uid, owner.gid);
  return dir;
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  janitor.untrackDir(dir);
}

/**
 * A server's wall clock, stepped while it runs through libfaketime: the
 * offset lives in a file the library rereads on every clock call. The
 * monotonic clock is left alone, as an NTP step would leave it.
 */
export class ServerClock {
  private offsetMs = 0;
  readonly file: string;

  constructor(dir: string) {
    this.file = join(dir, 'faketime.rc');
    this.write();
  }

  /** The environment that puts a program under this clock. */
  env(): Record<string, string> {
    return {
      LD_PRELOAD: faketimeLibrary(),
      FAKETIME_TIMESTAMP_FILE: this.file,
      FAKETIME_NO_CACHE: '1',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
      FAKETIME_DONT_RESET: '1',
    };
  }

  get stepMs(): number {
    return this.offsetMs;
  }

  /** Moves the server's wall clock by `byMs` (forward when positive), at once. */
  step(byMs: number): void {
    this.offsetMs += byMs;
    this.write();
  }

  private write(): void {
    // Written whole and renamed, so the library never reads half a line.
    const tmp = `${this.file}.tmp`;
    const seconds = this.offsetMs / 1000;
    writeFileSync(tmp, `${seconds >= 0 ? '+' : ''}${seconds.toFixed(3)}\n`);
    renameSync(tmp, this.file);
  }
}

/** What every harness server offers: the faults the real runner aims at it. */
export abstract class Server {
  abstract readonly kind: string;
  abstract readonly name: string;
  protected abstract readonly proc: ServerProcess;
  protected abstract readonly dir: string;
  /** Present when the server reads a wall clock the harness can step. */
  readonly clock: ServerClock | undefined = undefined;
  private closed = false;

  get running(): boolean {
    return this.proc.running;
  }

  get paused(): boolean {
    return this.proc.isPaused;
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  get logFile(): string {
    return this.proc.logFile;
  }

  /** Where clients connect, as a URL. */
  abstract get url(): string;

  async start(): Promise<void> {
    await this.proc.start();
  }

  /** A clean shutdown. */
  async stop(): Promise<void> {
    await this.proc.stop();
  }

  /** SIGKILL: a crash. */
  async kill(): Promise<void> {
    await this.proc.kill();
  }

  pause(): void {
    this.proc.pause();
  }

  resume(): void {
    this.proc.resume();
  }

  /** Down for `downMs`, then up again on the same port and data: killed (a crash) unless `clean`. */
  async restart(downMs: number, clean = false): Promise<void> {
    if (clean) await this.stop();
    else await this.kill();
    if (downMs > 0) await sleep(downMs);
    await this.start();
  }

  /** Steps the server's wall clock; refused for servers whose expiry does not read one. */
  stepClock(byMs: number): void {
    if (this.clock === undefined) throw new Error(`${this.name}: ${this.kind} does not read a wall clock the harness can step`);
    this.clock.step(byMs);
  }

  /** Kills the server and removes its directory; safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.proc.kill();
    removeDir(this.dir);
  }
}
