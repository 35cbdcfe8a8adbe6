/**
 * A runaway summarizer (docs/resilience.md#summarizer-cool-down): `turns` Runner turns, each over
 * the token threshold, 30 s of the user's time between them, the default 120 s
 * `summarizerTimeoutMs`, on a fake clock (node:test's mock timers: no sleeping, exact figures
 * to the second). Rows: the summarizer's calls and the turns' times with the cool-down off (the
 * code before it) and on, without and with the digest fallback, in the foreground and in the
 * background; and a slow but healthy summarizer (20 s an answer), foreground against background,
 * to decide whether a turn should wait for a summary while its request still fits.
 *
 * `npm run bench -- hung-summarizer`
 */
import { mock } from 'node:test';
import { LlmAgent } from '../src/runtime/agents/llm-agent.js';
import { Runner } from '../src/runtime/turn/runner.js';
import { InMemorySessionService } from '../src/sessions/in-memory-session-service.js';
import { DigestSummarizer } from '../src/summarizers/index.js';
import { textResponse } from '../src/testing/scripted-model.js';

const turns = 20;
const pauseMs = 30_000;
const key = { appName: 'bench', userId: 'user', sessionId: 'hung' };

interface Scenario {
  name: string;
  /** `hung`: never answers; a number: answers after that many ms. */
  summarizer: 'hung' | number;
  coolDown: boolean;
  fallback: boolean;
  background: boolean;
}

const scenarios: Scenario[] = [
  {
    name: 'hung, no fallback, cool-down off (before)',
    summarizer: 'hung',
    coolDown: false,
    fallback: false,
    background: false,
  },
  {
    name: 'hung, no fallback, cool-down on',
    summarizer: 'hung',
    coolDown: true,
    fallback: false,
    background: false,
  },
  {
    name: 'hung, digest fallback, cool-down off (before)',
    summarizer: 'hung',
    coolDown: false,
    fallback: true,
    background: false,
  },
  {
    name: 'hung, digest fallback, cool-down on',
    summarizer: 'hung',
    coolDown: true,
    fallback: true,
    background: false,
  },
  {
    name: 'hung, no fallback, cool-down on, background',
    summarizer: 'hung',
    coolDown: true,
    fallback: false,
    background: true,
  },
  {
    name: 'slow 20 s, foreground',
    summarizer: 20_000,
    coolDown: true,
    fallback: true,
    background: false,
  },
  {
    name: 'slow 20 s, background',
    summarizer: 20_000,
    coolDown: true,
    fallback: true,
    background: true,
  },
];

/** Lets every promise chain run as far as it can before the clock moves. */
async function settle(): Promise<void> {
  for (let round = 0; round < 1500; round++) await new Promise((resolve) => setImmediate(resolve));
}

/** Moves the fake clock a second at a time until `promise` settles; returns the ms it took. */
async function timed(promise: Promise<unknown>): Promise<number> {
  const started = Date.now();
  let finished = false;
  const done = promise.finally(() => {
    finished = true;
  });
  await settle();
  while (!finished) {
    mock.timers.tick(1_000);
    await settle();
  }
  await done;
  return Date.now() - started;
}

async function runScenario(scenario: Scenario) {
  let calls = 0;
  const summarizer = {
    name: 'summarizer',
    summarize: () => {
      calls++;
      if (scenario.summarizer === 'hung') return new Promise<never>(() => {});
      const delay = scenario.summarizer;
      return new Promise<{ content: { role: 'model'; parts: { text: string }[] } }>((resolve) =>
        setTimeout(
          () => resolve({ content: { role: 'model', parts: [{ text: 'summary' }] } }),
          delay,
        ),
      );
    },
  };
  const sessionService = new InMemorySessionService();
  await sessionService.createSession(key);
  let answer = 0;
  const runner = new Runner({
    appName: key.appName,
    agent: new LlmAgent({
      name: 'agent',
      model: {
        modelId: 'stub',
        generate: async () =>
          textResponse(`answer ${answer++} ${'word '.repeat(400)}`, { promptTokenCount: 500 }),
      },
    }),
    sessionService,
    compaction: {
      tokenThreshold: 100,
      eventRetentionSize: 0,
      ...(scenario.coolDown ? {} : { summarizerCoolDownMs: 0 }),
    },
    summarizer,
    fallbackSummarizer: scenario.fallback ? new DigestSummarizer() : null,
    background: scenario.background,
    sessionLease: false,
    logger: false,
  });
  const durations: number[] = [];
  for (let turn = 0; turn < turns; turn++) {
    const events = (async () => {
      for await (const _event of runner.run({ ...key, newMessage: `question ${turn}` })) {
        // drain
      }
    })();
    durations.push(await timed(events));
    mock.timers.tick(pauseMs);
    await settle();
  }
  await timed(runner.flush());
  return { calls, durations };
}

const seconds = (ms: number) => `${Math.round(ms / 1000)}`;

export async function run(): Promise<void> {
  console.log(
    `${turns} turns, each over the threshold, ${pauseMs / 1000} s between turns, summarizerTimeoutMs 120 s (fake clock)\n`,
  );
  console.log(
    '| scenario | summarizer calls | total turn time (s) | longest turn (s) | turns that waited |',
  );
  console.log('|---|---:|---:|---:|---:|');
  mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  try {
    for (const scenario of scenarios) {
      const { calls, durations } = await runScenario(scenario);
      const total = durations.reduce((sum, ms) => sum + ms, 0);
      const waited = durations.filter((ms) => ms > 0).length;
      console.log(
        `| ${scenario.name} | ${calls} | ${seconds(total)} | ${seconds(Math.max(...durations))} | ${waited} |`,
      );
    }
  } finally {
    mock.timers.reset();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
