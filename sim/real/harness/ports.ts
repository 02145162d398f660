import { createServer, connect } from 'node:net';

/** A port on 127.0.0.1 that nothing listens on right now (the kernel picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Several distinct free ports. */
export async function freePorts(n: number): Promise<number[]> {
  const out = new Set<number>();
  while (out.size < n) out.add(await freePort());
  return [...out];
}

/**
 * Sends `probe` to 127.0.0.1:port and resolves with what came back within
 * `timeoutMs` (empty when the connection was refused or closed silently):
 * the first line, or with `untilClose` everything until the server hangs up
 * (ZooKeeper's four-letter words answer several lines, then close).
 */
export function ask(port: number, probe: string, timeoutMs: number, host = '127.0.0.1', untilClose = false): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const socket = connect({ port, host });
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(text);
    };
    const timer = setTimeout(done, timeoutMs);
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(probe));
    socket.on('data', (d: string) => {
      text += d;
      if (!untilClose && text.includes('\n')) done();
    });
    socket.on('error', done);
    socket.on('end', done);
    socket.on('close', done);
  });
}
