import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { REAPER_SCRIPT } from '../paths.js';

/**
 * Everything the harness started, so that it can all be stopped whatever
 * happens: on close, on a normal exit, on Ctrl-C or SIGTERM, and — through a
 * detached reaper process that outlives us — even when this process is
 * killed outright. Only what is listed here is ever killed.
 */
class Janitor {
  private readonly groups = new Map<number, string>();
  private readonly dirs = new Set<string>();
  private readonly interruptHooks = new Set<() => void>();
  private reaper: ChildProcess | undefined;
  private installed = false;

  /** Registers a server's process group (its leader's pid) and the program it runs. */
  trackGroup(pid: number, program: string): void {
    this.install();
    this.groups.set(pid, program);
    this.tell(`+pid ${pid} ${program}`);
  }

  untrackGroup(pid: number): void {
    this.groups.delete(pid);
    this.tell(`-pid ${pid}`);
  }

  trackDir(dir: string): void {
    this.install();
    this.dirs.add(dir);
    this.tell(`+dir ${dir}`);
  }

  untrackDir(dir: string): void {
    this.dirs.delete(dir);
    this.tell(`-dir ${dir}`);
  }

  /** Runs `hook` (synchronously) on Ctrl-C or SIGTERM, before the servers are killed: a runner writes its partial trace there. */
  onInterrupt(hook: () => void): () => void {
    this.install();
    this.interruptHooks.add(hook);
    return () => this.interruptHooks.delete(hook);
  }

  /** How many server process groups are running now. */
  get running(): number {
    return this.groups.size;
  }

  /** Kills every listed group and removes every listed directory, at once and synchronously. */
  killAllSync(): void {
    for (const [pid, program] of this.groups) {
      if (commandLine(pid).includes(program)) signalGroup(pid, 'SIGKILL');
      this.untrackGroup(pid);
    }
    for (const dir of this.dirs) {
      rmSync(dir, { recursive: true, force: true });
      this.untrackDir(dir);
    }
  }

  private tell(line: string): void {
    const stdin = this.reaper?.stdin;
    if (stdin !== undefined && stdin !== null && stdin.writable) stdin.write(`${line}\n`);
  }

  private install(): void {
    if (this.installed) return;
    this.installed = true;
    this.reaper = spawn(process.execPath, [REAPER_SCRIPT], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
    this.reaper.on('error', () => undefined);
    this.reaper.unref();
    const stdin = this.reaper.stdin as (NodeJS.WritableStream & { unref?: () => void; on(e: 'error', f: () => void): void }) | null;
    stdin?.on('error', () => undefined);
    stdin?.unref?.();
    process.on('exit', () => this.killAllSync());
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      process.once(signal, () => {
        for (const hook of this.interruptHooks) {
          try {
            hook();
          } catch {
            // a hook's failure must not keep the servers running
          }
        }
        this.killAllSync();
        process.exit(signal === 'SIGINT' ? 130 : 143);
      });
    }
  }
}

/** The harness's one janitor for this process. */
export const janitor = new Janitor();

export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** Signals a whole process group (a server and whatever it forked); false when it is gone. */
export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    try {
      process.kill(pid, signal);
      return true;
    } catch {
      return false;
    }
  }
}
