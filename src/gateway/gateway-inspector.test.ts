import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../../test/cli/in-process.js';
import { openStore } from '../cli/store.js';
import { createEventsCompactionConfig } from '../compaction/config.js';
import type { SessionsResponse, TimelineResponse, ViewResponse } from '../server/index.js';
import { inspectorFixture } from '../server/inspector/test-helpers/inspector-fixture.js';
import type { ListeningServer } from '../server/listen.js';
import type { SessionService } from '../sessions/session-service.js';
import { createGateway } from './index.js';
import { completion, type FakeOpenAi, startFakeOpenAi } from './test-helpers/fake-openai.js';

let upstream: FakeOpenAi;
let gateway: ListeningServer | undefined;
let service: SessionService | undefined;
let directory: string;

beforeEach(async () => {
  upstream = await startFakeOpenAi();
  directory = mkdtempSync(join(tmpdir(), 'orrery-gateway-inspector-'));
});
afterEach(async () => {
  await gateway?.shutdown({ timeoutMs: 1000 });
  gateway = undefined;
  await service?.close?.();
  service = undefined;
  await upstream.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('a gateway session in the inspector, export and replay', () => {
  it('is listed and readable through the inspector API, exported and replayed by the CLI', async () => {
    const db = join(directory, 'orrery.db');
    service = await openStore({ db, appName: 'gateway', userId: 'anonymous' });
    // Embedded from the package's `orrery-runtime/gateway` entry.
    const created = createGateway({
      sessionService: service,
      compaction: createEventsCompactionConfig({ env: {}, tokenThreshold: 2_000 }),
      openAiBaseUrl: upstream.url,
      logger: false,
    });
    gateway = await created.listen({ port: 0 });
    const openai = new OpenAI({
      apiKey: 'sk-test-provider-key-0123456789',
      baseURL: `${gateway.url}/openai/v1`,
      maxRetries: 0,
      defaultHeaders: { 'x-orrery-session': 'inspected' },
    });
    upstream.respond = (request) => completion(`answer ${upstream.requests.length}`, request);
    const history: ChatCompletionMessageParam[] = [];
    for (let turn = 1; turn <= 6; turn++) {
      history.push({ role: 'user', content: `question ${turn}: ${'detail '.repeat(300)}` });
      const answer = await openai.chat.completions.create({ model: 'gpt-4o', messages: history });
      history.push(answer.choices[0]!.message);
    }

    const inspector = inspectorFixture({ service });
    const api = '/inspector/api';
    const listed = (await (
      await inspector.request(`${api}/sessions?app=gateway`)
    ).json()) as SessionsResponse;
    const row = listed.sessions.find((session) => session.sessionId === 'inspected');
    expect(row).toMatchObject({ appName: 'gateway', userId: 'anonymous' });
    expect(row!.compactionCount).toBeGreaterThan(0);
    const base = `${api}/apps/gateway/users/anonymous/sessions/inspected`;
    const timeline = (await (
      await inspector.request(`${base}/timeline?limit=200`)
    ).json()) as TimelineResponse;
    expect(JSON.stringify(timeline)).toContain('question 1');
    const view = (await (await inspector.request(`${base}/view`)).json()) as ViewResponse;
    expect(view.total).toBeGreaterThan(0);

    const exported = await cli([
      'sessions',
      'export',
      'inspected',
      '--db',
      db,
      '--app',
      'gateway',
      '--user',
      'anonymous',
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    const file = join(directory, 'inspected.json');
    writeFileSync(file, exported.stdout);
    expect(exported.stdout).toContain('question 6');
    const replayed = await cli(['replay', file, '--json', '--threshold', '2000']);
    expect(replayed.code, replayed.stderr).toBe(0);
    const report = JSON.parse(replayed.stdout) as { compactions: unknown[] };
    expect(report.compactions.length).toBeGreaterThan(0);
  }, 120_000);
});
