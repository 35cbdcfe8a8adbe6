import { describe, expect, it } from 'vitest';
import { runSessionServiceConformance } from '../testing/session-service-conformance.js';
import { InMemorySessionService } from './in-memory-session-service.js';

runSessionServiceConformance({
  name: 'InMemorySessionService',
  createService: async () => new InMemorySessionService(),
});

describe('InMemorySessionService', () => {
  it('keeps separate instances apart (no global store)', async () => {
    const first = new InMemorySessionService();
    const second = new InMemorySessionService();
    await first.createSession({ appName: 'app', userId: 'user', sessionId: 'one' });
    expect(
      await second.getSession({ appName: 'app', userId: 'user', sessionId: 'one' }),
    ).toBeUndefined();
  });
});
