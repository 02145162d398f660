import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findBinary, findFile } from './binaries.js';
import { ask, freePorts } from './ports.js';
import { Server, tempDir } from './server.js';
import { ServerProcess } from './server-process.js';

export interface ZooKeeperOptions {
  readonly name?: string;
  /** ZooKeeper's tick; sessions may last 2 to 20 ticks. */
  readonly tickMs?: number;
}

interface Member {
  readonly id: number;
  readonly clientPort: number;
  readonly peerPort: number;
  readonly electionPort: number;
}

function classpath(): string {
  const jar = findFile(['/usr/share/java/zookeeper.jar'], 'zookeeper.jar', 'zookeeper');
  // slf4j-simple sends ZooKeeper's log to stderr, hence to the server's log file.
  const logger = ['/usr/share/java/slf4j-simple.jar'].filter((f) => {
    try {
      findFile([f], f, 'libslf4j-java');
      return true;
    } catch {
      return false;
    }
  });
  return [jar, ...logger].join(':');
}

function config(dataDir: string, tickMs: number, me: Member, members: readonly Member[]): string {
  const lines = [
    `tickTime=${tickMs}`,
    `dataDir=${dataDir}`,
    `clientPort=${me.clientPort}`,
    'clientPortAddress=127.0.0.1',
    'admin.enableServer=false',
    '4lw.commands.whitelist=*',
    `minSessionTimeout=${2 * tickMs}`,
    `maxSessionTimeout=${20 * tickMs}`,
    'initLimit=10',
    'syncLimit=5',
  ];
  if (members.length > 1) {
    for (const m of members) lines.push(`server.${m.id}=127.0.0.1:${m.peerPort}:${m.electionPort}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * One ZooKeeper server, standalone or a member of an ensemble. Its
 * transaction log is written but not fsynced (`zookeeper.forceSync=no`), as
 * the PostgreSQL harness turns fsync off: no lock story needs a power cut's
 * durability (a killed or restarted server keeps what it wrote, which the
 * page cache holds), and on a machine busy with other disk writes each
 * create and delete otherwise waits its turn for the disk, up to 134 ms here
 * and longer on a loaded machine: past a scenario's 1 s request timeout, a
 * release then times out where the story has it answered.
 */
export class ZooKeeperServer extends Server {
  readonly kind = 'zookeeper';
  protected readonly proc: ServerProcess;
  protected readonly dir: string;

  constructor(
    readonly name: string,
    private readonly member: Member,
    members: readonly Member[],
    tickMs: number,
  ) {
    super();
    const java = findBinary('java', 'default-jre-headless');
    const cp = classpath();
    this.dir = tempDir('zookeeper');
    const dataDir = join(this.dir, 'data');
    mkdirSync(dataDir);
    if (members.length > 1) writeFileSync(join(dataDir, 'myid'), `${member.id}\n`);
    const cfg = join(this.dir, 'zoo.cfg');
    writeFileSync(cfg, config(dataDir, tickMs, member, members));
    const args = [
      '-Xmx192m',
      '-XX:+UseSerialGC',
      '-XX:TieredStopAtLevel=1',
      '-Dzookeeper.jmx.log4j.disable=true',
      '-Dzookeeper.forceSync=no',
      `-Dzookeeper.log.dir=${this.dir}`,
      '-cp',
      cp,
      'org.apache.zookeeper.server.quorum.QuorumPeerMain',
      cfg,
    ];
    this.proc = new ServerProcess(
      `zookeeper ${name} on 127.0.0.1:${member.clientPort}`,
      () => ({ command: java, args, cwd: this.dir, logFile: join(this.dir, 'zookeeper.log') }),
      // `srvr` names the mode only once the server serves (an ensemble member needs its quorum).
      async () => /Mode: (standalone|leader|follower)/.test(await ask(member.clientPort, 'srvr', 1000, '127.0.0.1', true)),
      60_000,
    );
  }

  get port(): number {
    return this.member.clientPort;
  }

  get url(): string {
    return `zookeeper://127.0.0.1:${this.member.clientPort}`;
  }

  /** `standalone`, `leader`, `follower`, or `down`. */
  async mode(): Promise<string> {
    return /Mode: (\w+)/.exec(await ask(this.member.clientPort, 'srvr', 1000, '127.0.0.1', true))?.[1] ?? 'down';
  }
}

/** A standalone ZooKeeper on a free port. */
export async function startZooKeeper(opts: ZooKeeperOptions = {}): Promise<ZooKeeperServer> {
  const [clientPort] = await freePorts(1);
  const me: Member = { id: 1, clientPort: clientPort!, peerPort: 0, electionPort: 0 };
  const s = new ZooKeeperServer(opts.name ?? 'zk', me, [me], opts.tickMs ?? 2000);
  await s.start();
  return s;
}

/** A ZooKeeper ensemble of `size` servers (3 by default) on free ports; resolves once a quorum serves. */
export async function startZooKeeperEnsemble(size = 3, opts: ZooKeeperOptions = {}): Promise<ZooKeeperServer[]> {
  const ports = await freePorts(size * 3);
  const members: Member[] = Array.from({ length: size }, (_, i) => ({
    id: i + 1,
    clientPort: ports[i * 3]!,
    peerPort: ports[i * 3 + 1]!,
    electionPort: ports[i * 3 + 2]!,
  }));
  const base = opts.name ?? 'zk';
  const servers = members.map((m) => new ZooKeeperServer(`${base}${m.id}`, m, members, opts.tickMs ?? 2000));
  try {
    // Started together: each member waits for a quorum before it serves.
    await Promise.all(servers.map((s) => s.start()));
  } catch (err) {
    await Promise.all(servers.map((s) => s.close()));
    throw err;
  }
  return servers;
}

/** The connection string of an ensemble. */
export function ensembleUrl(servers: readonly ZooKeeperServer[]): string {
  return servers.map((s) => `127.0.0.1:${s.port}`).join(',');
}
