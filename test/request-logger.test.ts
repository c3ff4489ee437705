import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { loggerOptions } from '../src/logger.js';
import { lazyChildLoggerFactory } from '../src/request-logger.js';

/** A pino logger with the app's options, its lines, and a count of children made from it. */
function parentLogger(level: 'info' | 'warn'): { parent: FastifyBaseLogger; lines: string[]; children: () => number } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  const parent = pino(loggerOptions(level), sink);
  let children = 0;
  // Called with the logger it is invoked on: children inherit this counting method too.
  const proto = Object.getPrototypeOf(parent) as typeof parent;
  parent.child = function (this: typeof parent, ...args: Parameters<typeof parent.child>) {
    children++;
    return proto.child.apply(this, args);
  } as typeof parent.child;
  return { parent, lines, children: () => children };
}

const requestLogger = (parent: FastifyBaseLogger, options = {}): FastifyBaseLogger =>
  lazyChildLoggerFactory.call(undefined, parent, { reqId: 'req-1' }, options);

describe('lazy request logger', () => {
  it('makes no pino child for a request that does not log', () => {
    const { parent, lines, children } = parentLogger('info');
    const log = requestLogger(parent);
    assert.equal(log.level, 'info');
    assert.equal(children(), 0);
    assert.equal(lines.length, 0);
  });

  it('drops a line below the level without making the child', () => {
    const { parent, lines, children } = parentLogger('warn');
    const log = requestLogger(parent);
    log.info('not written');
    log.debug({ a: 1 }, 'not written');
    assert.equal(children(), 0);
    assert.equal(lines.length, 0);
  });

  it('writes what the child would: the reqId binding, the message, redaction', () => {
    const { parent, lines, children } = parentLogger('info');
    const log = requestLogger(parent);
    log.error({ headers: { authorization: 'Bearer pk_x.secret' }, code: 7 }, 'failed %s', 'here');
    log.warn('second');
    assert.equal(children(), 1, 'one child, made on the first line and reused');
    assert.equal(lines.length, 2);
    const first = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    assert.equal(first.reqId, 'req-1');
    assert.equal(first.msg, 'failed here');
    assert.equal(first.code, 7);
    assert.deepEqual(first.headers, { authorization: '[redacted]' });
    assert.equal((JSON.parse(lines[1] ?? '') as Record<string, unknown>).reqId, 'req-1');
  });

  it('honours a route level passed in the options, and level changes', () => {
    const { parent, lines } = parentLogger('warn');
    const log = requestLogger(parent, { level: 'debug' });
    assert.equal(log.level, 'debug');
    log.debug('route debug line');
    assert.equal(lines.length, 1);
    log.level = 'error';
    log.warn('dropped now');
    assert.equal(lines.length, 1);
    const grandchild = log.child({ step: 'payout' });
    grandchild.error('from the grandchild');
    const last = JSON.parse(lines.at(-1) ?? '') as Record<string, unknown>;
    assert.deepEqual([last.reqId, last.step, last.msg], ['req-1', 'payout', 'from the grandchild']);
  });
});
