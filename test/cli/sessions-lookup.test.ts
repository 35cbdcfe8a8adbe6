/**
 * Sessions wherever they were stored: `sessions list --all` across apps and users (adapters
 * store under their own), an empty listing that names what the store holds, and session ids
 * typed as a prefix or with a typo.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OrreryAgentsSession } from '../../src/adapters/openai-agents/index.js';
import { SqliteSessionService } from '../../src/sessions/sqlite/index.js';
import { cli, tempDir } from './in-process.js';

/** A store holding one session the OpenAI Agents adapter wrote (app 'openai-agents', user 'anonymous'). */
async function adapterStore(): Promise<string> {
  const db = join(tempDir(), 'orrery.db');
  const service = new SqliteSessionService({ path: db });
  try {
    const session = new OrreryAgentsSession({
      sessionService: service,
      sessionId: 'agents-chat-7f3a',
      compaction: null,
    });
    await session.addItems([{ role: 'user', content: 'What changed since yesterday?' }]);
  } finally {
    await service.close();
  }
  return db;
}

describe('orrery sessions list', () => {
  it('--all lists a session an adapter stored under its own app and user', async () => {
    const db = await adapterStore();
    const table = await cli(['sessions', 'list', '--all', '--db', db]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^app +user +session +events +compactions +updated \(UTC\)$/m);
    expect(table.stdout).toMatch(/^openai-agents +anonymous +agents-chat-7f3a +1 +0 +\d{4}-/m);
    const json = JSON.parse(
      (await cli(['sessions', 'list', '--all', '--db', db, '--json'])).stdout,
    );
    expect(json).toEqual([
      expect.objectContaining({
        appName: 'openai-agents',
        userId: 'anonymous',
        sessionId: 'agents-chat-7f3a',
        eventCount: 1,
      }),
    ]);
  });

  it('an empty listing names what the store holds and how to see it', async () => {
    const db = await adapterStore();
    const result = await cli(['sessions', 'list', '--db', db]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      "no sessions for app 'orrery' and user 'local'. The store holds app 'openai-agents' user 'anonymous': 1 session.\nSee them all: orrery sessions list --all; or pass --app and --user (e.g. --app openai-agents --user anonymous)\n",
    );
  });
});

describe('session ids as typed', () => {
  it('a unique prefix resolves; a miss under this app names the app and user that hold it', async () => {
    const db = await adapterStore();
    const scoped = ['--db', db, '--app', 'openai-agents', '--user', 'anonymous'];
    const shown = await cli(['sessions', 'show', 'agents-chat', ...scoped, '--json']);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout).sessionId).toBe('agents-chat-7f3a');
    expect((await cli(['view', 'agents-chat-7', ...scoped])).code).toBe(0);

    const elsewhere = await cli(['sessions', 'show', 'agents-chat', '--db', db]);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain(
      "SessionNotFoundError: Session 'agents-chat' not found for app 'orrery' and user 'local'; 'agents-chat-7f3a' is stored under app 'openai-agents' and user 'anonymous': add --app openai-agents --user anonymous",
    );
  });

  it('a typo gets "did you mean"; delete needs the whole id; an ambiguous prefix says so', async () => {
    const db = await adapterStore();
    const scoped = ['--db', db, '--app', 'openai-agents', '--user', 'anonymous'];
    const typo = await cli(['sessions', 'show', 'agents-chat-7f3b', ...scoped]);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain("did you mean 'agents-chat-7f3a'?");

    const partial = await cli(['sessions', 'delete', 'agents-chat', ...scoped]);
    expect(partial.code).toBe(1);
    expect(partial.stderr).toContain(
      "did you mean 'agents-chat-7f3a'? (this command needs the whole id)",
    );
    expect((await cli(['sessions', 'list', '--all', '--db', db, '--json'])).stdout).toContain(
      'agents-chat-7f3a',
    );

    const service = new SqliteSessionService({ path: db });
    await service.createSession({
      appName: 'openai-agents',
      userId: 'anonymous',
      sessionId: 'agents-chat-9',
    });
    await service.close();
    const ambiguous = await cli(['sessions', 'show', 'agents-chat', ...scoped]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain("session id 'agents-chat' is the start of 2 sessions (");
  });
});
