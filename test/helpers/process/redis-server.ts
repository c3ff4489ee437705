import net from 'node:net';
import { childEnv, spawnManaged, waitUntilReady, type ManagedProcess } from './managed-process.js';
import { freePort } from './waits.js';

/** Whether something at host:port answers the Redis PING with PONG within `timeoutMs`. */
export function redisPing(port: number, host = '127.0.0.1', timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    let answer = '';
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('utf8');
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
    socket.on('error', () => done(false));
  });
}

export interface RedisServer extends ManagedProcess {
  readonly port: number;
  readonly url: string;
}

/** A private, memory-only redis-server (from PATH) on a free port; `port` reuses one (restart). */
export async function startRedisServer(port?: number): Promise<RedisServer> {
  const chosen = port ?? (await freePort());
  const proc = spawnManaged(
    `redis:${chosen}`,
    'redis-server',
    ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'],
    { env: childEnv({}) },
  );
  await waitUntilReady(proc, () => redisPing(chosen), { timeoutMs: 10_000, hint: "redis-server comes with Debian's `redis-server` package" });
  return Object.assign(proc, { port: chosen, url: `redis://127.0.0.1:${chosen}` });
}
