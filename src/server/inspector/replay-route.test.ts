import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cli } from '../../../test/cli/in-process.js';
import { inspectorReplay } from './inspector-replay.js';
import { inspectorFixture, TOKEN_ALICE } from './test-helpers/inspector-fixture.js';

const FILE = 'examples/incident-session.jsonl';
const transcript = readFileSync(FILE, 'utf8');

function post(fixture: ReturnType<typeof inspectorFixture>, body: unknown, token?: string) {
  return fixture.request('/inspector/api/replay', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    token,
  });
}

async function cliJson(args: string[]): Promise<unknown> {
  const result = await cli(['replay', FILE, '--json', ...args]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

describe('POST /inspector/api/replay', () => {
  it('answers what orrery replay --json prints, default settings', async () => {
    const fixture = inspectorFixture({ inspector: { replay: inspectorReplay } });
    const response = await post(fixture, { transcript, fileName: FILE });
    expect(response.status, await response.clone().text()).toBe(200);
    const body = (await response.json()) as { compactions: unknown[] };
    expect(body).toEqual(await cliJson([]));
    expect(body.compactions.length).toBeGreaterThan(0);
  }, 120_000);

  it('answers what orrery replay --json prints with every setting given', async () => {
    const fixture = inspectorFixture({ inspector: { replay: inspectorReplay } });
    const response = await post(fixture, {
      transcript,
      fileName: FILE,
      threshold: 8000,
      retention: 4,
      interval: 3,
      overlap: 0,
      maxRequestBytes: 60_000,
      summarizer: 'digest',
    });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toEqual(
      await cliJson([
        '--threshold',
        '8000',
        '--retention',
        '4',
        '--interval',
        '3',
        '--overlap',
        '0',
        '--max-request-bytes',
        '60000',
      ]),
    );
  }, 120_000);

  it('summarizer none: nothing compacted, every request the uncompacted one', async () => {
    const fixture = inspectorFixture({ inspector: { replay: inspectorReplay } });
    const none = (await (
      await post(fixture, { transcript, fileName: FILE, summarizer: 'none', threshold: 100 })
    ).json()) as {
      compactions: unknown[];
      tokens: { withCompaction: number; withoutCompaction: number };
    };
    const compacted = (await cliJson([])) as typeof none;
    expect(none.compactions).toEqual([]);
    expect(none.tokens.withCompaction).toBe(none.tokens.withoutCompaction);
    expect(none.tokens.withoutCompaction).toBe(compacted.tokens.withoutCompaction);
    expect(compacted.tokens.withCompaction).toBeLessThan(compacted.tokens.withoutCompaction);
  }, 120_000);

  it('with a price, answers what orrery replay --price --json prints: cost per call included', async () => {
    const fixture = inspectorFixture({ inspector: { replay: inspectorReplay } });
    const price = 'anthropic:claude-sonnet-4-5';
    const response = await post(fixture, { transcript, fileName: FILE, threshold: 30_000, price });
    expect(response.status, await response.clone().text()).toBe(200);
    const body = (await response.json()) as {
      modelCalls: number;
      cost: {
        withCompaction: { usd: number; summarizerUsd: number };
        perCallUsd: { withCompaction: number[] };
      };
    };
    expect(body).toEqual(await cliJson(['--threshold', '30000', '--price', price]));
    const perCall = body.cost.perCallUsd.withCompaction;
    expect(perCall).toHaveLength(body.modelCalls);
    const sum = perCall.reduce((total, usd) => total + usd, 0);
    expect(sum + body.cost.withCompaction.summarizerUsd).toBeCloseTo(
      body.cost.withCompaction.usd,
      9,
    );
    const unknown = await post(fixture, { transcript, price: 'anthropic:claude-imaginary-9' });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { field: string }).field).toBe('price');
  }, 120_000);

  it('answers a bad transcript or setting with a 400 naming the field', async () => {
    const fixture = inspectorFixture({ inspector: { replay: inspectorReplay } });
    const cases: Array<[unknown, string, RegExp]> = [
      [{}, 'transcript', /transcript/],
      [{ transcript: '' }, 'transcript', /empty/],
      [{ transcript: 'this is not a transcript {' }, 'transcript', /transcript/],
      [{ transcript: '[]', fileName: 'empty.json' }, 'transcript', /empty\.json/],
      [{ transcript, threshold: -1 }, 'threshold', /-1/],
      [{ transcript, retention: 1.5 }, 'retention', /1\.5/],
      [{ transcript, maxRequestBytes: 0 }, 'maxRequestBytes', /0/],
      [{ transcript, summarizer: 'google:gemini-2.5-flash' }, 'summarizer', /digest/],
      [{ transcript, treshold: 10 }, 'body', /treshold/],
      ['{not json', 'body', /JSON/],
    ];
    for (const [body, field, detail] of cases) {
      const response = await post(fixture, body);
      const problem = (await response.json()) as { field: string; detail: string };
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(problem.field, problem.detail).toBe(field);
      expect(problem.detail).toMatch(detail);
    }
  }, 120_000);

  it('takes bodies over the global limit up to its own, and refuses larger ones with 413', async () => {
    const fixture = inspectorFixture({
      maxBodyBytes: 1024 * 1024,
      inspector: { replay: inspectorReplay, maxReplayBytes: 3 * 1024 * 1024 },
    });
    const big = 'x'.repeat(2 * 1024 * 1024);
    // Over the server's 1 MiB, under the replay's 3 MiB: read and checked (a bad setting).
    const read = await post(fixture, { transcript: big, threshold: -1 });
    expect(read.status).toBe(400);
    expect(await read.json()).toMatchObject({ field: 'threshold' });
    const tooBig = await post(fixture, { transcript: 'x'.repeat(4 * 1024 * 1024) });
    expect(tooBig.status).toBe(413);
    expect(await tooBig.json()).toMatchObject({ field: 'transcript' });
    // Every other route keeps the server's limit.
    const run = await fixture.request('/run', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ big }),
    });
    expect(run.status).toBe(413);
  });

  it('replays in its own worker by default; 501 when turned off; 401 without a token', async () => {
    const plain = inspectorFixture();
    const replayed = await post(plain, { transcript });
    expect(replayed.status).toBe(200);
    const report = (await replayed.json()) as { events: number };
    expect(report.events).toBeGreaterThan(0);
    const off = inspectorFixture({ inspector: { replay: false } });
    const response = await post(off, { transcript });
    expect(response.status).toBe(501);
    expect(((await response.json()) as { detail: string }).detail).toContain('replay: false');
    const guarded = inspectorFixture({ tokens: true, inspector: { replay: inspectorReplay } });
    expect((await post(guarded, { transcript })).status).toBe(401);
    expect((await post(guarded, { transcript: '' }, TOKEN_ALICE)).status).toBe(400);
  });
});

describe('POST /inspector/api/replay with threshold 0', () => {
  type Report = {
    compactions: Array<{ trigger: string }>;
    tokens: { withCompaction: number; withoutCompaction: number };
  };

  it('replays with compaction off, as orrery replay --threshold 0 --json does', async () => {
    const fixture = inspectorFixture({ inspector: { replay: inspectorReplay } });
    const response = await post(fixture, { transcript, fileName: FILE, threshold: 0 });
    expect(response.status, await response.clone().text()).toBe(200);
    const body = (await response.json()) as Report;
    expect(body).toEqual(await cliJson(['--threshold', '0']));
    expect(body.compactions).toEqual([]);
    expect(body.tokens.withCompaction).toBe(body.tokens.withoutCompaction);
  }, 120_000);

  it('keeps the sliding window with an interval, as the CLI does', async () => {
    const fixture = inspectorFixture({ inspector: { replay: inspectorReplay } });
    const response = await post(fixture, { transcript, fileName: FILE, threshold: 0, interval: 3 });
    expect(response.status, await response.clone().text()).toBe(200);
    const body = (await response.json()) as Report;
    expect(body).toEqual(await cliJson(['--threshold', '0', '--interval', '3']));
    expect(body.compactions.length).toBeGreaterThan(0);
    expect(body.compactions.every((compaction) => compaction.trigger === 'sliding_window')).toBe(
      true,
    );
  }, 120_000);

  it('refuses a byte ceiling with compaction off, as the CLI does: 400 naming both', async () => {
    const fixture = inspectorFixture({ inspector: { replay: inspectorReplay } });
    const response = await post(fixture, { transcript, threshold: 0, maxRequestBytes: 20_000 });
    expect(response.status).toBe(400);
    const problem = (await response.json()) as { field: string; detail: string };
    expect(problem.field).toBe('maxRequestBytes');
    expect(problem.detail).toContain('maxRequestBytes 20000');
    expect(problem.detail).toContain('threshold 0');
    const result = await cli(['replay', FILE, '--threshold', '0', '--max-request-bytes', '20000']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--max-request-bytes 20000');
  }, 120_000);
});
