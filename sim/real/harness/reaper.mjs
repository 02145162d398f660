// Cleans up after a harness whose process died without doing it (SIGKILL, a
// crashed test worker). The harness tells it, one line at a time on stdin,
// which server process groups and temporary directories it owns:
//   +pid <pid> <program>   -pid <pid>   +dir <path>   -dir <path>
// When stdin closes, whatever is still listed is killed and removed. A
// process is killed only while its command line still names the program it
// was started as, so a reused pid is never touched.
import { readFileSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';

const pids = new Map();
const dirs = new Set();

function cmdline(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const [op, arg, ...rest] = line.split(' ');
  if (op === '+pid') pids.set(Number(arg), rest.join(' '));
  else if (op === '-pid') pids.delete(Number(arg));
  else if (op === '+dir') dirs.add([arg, ...rest].join(' '));
  else if (op === '-dir') dirs.delete([arg, ...rest].join(' '));
});
lines.on('close', () => {
  for (const [pid, program] of pids) {
    if (!cmdline(pid).includes(program)) continue;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  // Give the kernel a moment to reap them before their directories go.
  setTimeout(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  }, 200);
});
