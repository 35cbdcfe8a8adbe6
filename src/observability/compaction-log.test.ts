import { Writable } from 'node:stream';
import { pino, symbols } from 'pino';
import { describe, expect, it } from 'vitest';
import { createRuntimeLogger } from './compaction-log.js';

/** The file descriptor a pino logger writes to (its SonicBoom destination). */
function destinationFd(logger: ReturnType<typeof createRuntimeLogger>): unknown {
  const stream = (logger as unknown as Record<symbol, { fd?: unknown }>)[symbols.streamSym];
  return stream?.fd;
}

describe('createRuntimeLogger', () => {
  it('defaults to warnings only, on stderr: a library writes no JSON to stdout', () => {
    const logger = createRuntimeLogger();
    expect(logger.level).toBe('warn');
    expect(logger.isLevelEnabled('info')).toBe(false);
    expect(logger.isLevelEnabled('warn')).toBe(true);
    expect(destinationFd(logger)).toBe(2);
  });

  it('keeps a logger the caller passes, at its level', () => {
    const logger = createRuntimeLogger({
      logger: pino({ level: 'debug' }, new Writable({ write: (_c, _e, done) => done() })),
    });
    expect(logger.level).toBe('debug');
  });

  it('logs nothing with logger: false', () => {
    const logger = createRuntimeLogger({ logger: false });
    expect(logger.isLevelEnabled('error')).toBe(false);
  });
});
