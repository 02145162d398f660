// One scenario client as an OS process of its own: the runner forks it,
// sends it the scenario, and it runs the simulation's lock code against the
// real servers, sending every event back. Stopping it (SIGSTOP) or killing
// it (SIGKILL) stops its timers, its heartbeats and its connections for real.
import { ClientSession } from './client-session.js';
import { isCut, type FromChild, type ToChild } from './ipc.js';
import { machineClocks } from './runtime/real-runtime.js';
import { RunClock } from './runtime/time.js';
import type { WriteReply } from '../world/resource.js';

function send(m: FromChild): void {
  process.send?.(m);
}

let session: ClientSession | undefined;
let partitions: ReadonlyArray<ReadonlyArray<readonly string[]>> = [];
const clock = new RunClock(process.hrtime.bigint());
const pendingWrites = new Map<number, (r: WriteReply) => void>();
let machines: ReturnType<typeof machineClocks> = new Map();

async function setup(m: Extract<ToChild, { t: 'setup' }>): Promise<void> {
  machines = machineClocks(m.scenario.machines);
  const urls = new Map(Object.entries(m.urls));
  session = new ClientSession({
    scenario: m.scenario,
    client: m.client,
    urls,
    clock,
    machines,
    msgBase: m.msgBase,
    emit: (e) => send({ t: 'event', e }),
    forward: (_to, request, msg) =>
      new Promise((resolve) => {
        pendingWrites.set(msg, resolve);
        send({ t: 'write', msg, request: request as never });
      }),
    cut: (machine, node) => partitions.length > 0 && isCut(partitions, machine, nodeMachine.get(node) ?? node),
    library: m.library,
  });
  const nodeMachine = new Map<string, string>([['resource', m.scenario.resource.machine]]);
  for (const [node, machine] of session.runtime.nodeMachines) nodeMachine.set(node, machine);
  await session.open();
}

process.on('message', (m: ToChild) => {
  switch (m.t) {
    case 'setup':
      setup(m).then(
        () => send({ t: 'ready' }),
        (err: unknown) => send({ t: 'failed', message: err instanceof Error ? err.message : String(err) }),
      );
      return;
    case 'start':
      clock.setOrigin(BigInt(m.originNs));
      void session!
        .run()
        .then(
          () => send({ t: 'done' }),
          (err: unknown) => send({ t: 'failed', message: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
        )
        .finally(async () => {
          await session!.close().catch(() => undefined);
          process.disconnect?.();
          process.exit(0);
        });
      return;
    case 'written':
      pendingWrites.get(m.msg)?.(m.reply);
      pendingWrites.delete(m.msg);
      return;
    case 'cut':
      partitions = m.partitions;
      return;
    case 'clock':
      machines.get(m.machine)?.jump(clock.nowUs(), m.byUs);
      return;
  }
});
// The runner going away ends the client too.
process.on('disconnect', () => process.exit(0));
