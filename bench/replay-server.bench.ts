/**
 * The inspector's replay (`POST /inspector/api/replay`) on generated chat transcripts of 411 kB
 * and 820 kB (short turns, each an invocation: the sliding window's worst case), interval 1:
 *
 * 1. Replay wall time with a huge overlap (1,000,000: what the server ran before the bound; it
 *    now answers 400) beside the largest overlap the server takes (4 x interval), in-process.
 * 2. `/healthz` during a replay through a listening server: the longest `/healthz` wait while
 *    the replay runs in the server's thread (a library's `inspectorReplay`) and in the worker
 *    (`createWorkerReplay`, what `orrery serve` and `orrery inspect` give).
 *
 * `npm run bench -- replay-server`. `ORRERY_BENCH_REPLAY_KB=411` runs one size only.
 */
import pino from 'pino';
import { LlmAgent } from '../src/runtime/agents/llm-agent.js';
import { Runner } from '../src/runtime/turn/runner.js';
import { createServer } from '../src/server/create-server.js';
import type { InspectorBodyReplay, InspectorReplay } from '../src/server/index.js';
import { inspectorReplay } from '../src/server/inspector/inspector-replay.js';
import { MAX_REPLAY_OVERLAP_PER_INTERVAL } from '../src/server/inspector/replay-request.js';
import { chatTranscript } from '../src/server/inspector/test-helpers/chat-transcript.js';
import { createWorkerReplay } from '../src/server/inspector/worker-replay.js';
import { InMemorySessionService } from '../src/sessions/in-memory-session-service.js';
import { ScriptedModel } from '../src/testing/scripted-model.js';

const sizesKb = (process.env.ORRERY_BENCH_REPLAY_KB ?? '411,820').split(',').map(Number);
const HUGE_OVERLAP = 1_000_000;

async function replayMs(transcript: string, overlap: number): Promise<number> {
  const started = performance.now();
  await inspectorReplay({
    request: { transcript, interval: 1, overlap },
    signal: new AbortController().signal,
  });
  return performance.now() - started;
}

/** The longest `/healthz` wait (ms, polled every 50 ms) while one replay runs, and the replay's time. */
async function healthzDuringReplay(
  replay: InspectorReplay | InspectorBodyReplay,
  body: string,
): Promise<{ worstHealthzMs: number; replayMs: number }> {
  const service = new InMemorySessionService();
  const runner = new Runner({
    appName: 'bench',
    agent: new LlmAgent({ name: 'agent', model: new ScriptedModel({ script: [] }) }),
    sessionService: service,
    compaction: null,
    logger: false,
  });
  const server = createServer({
    runner,
    sessionService: service,
    logger: pino({ level: 'silent' }),
    inspector: { replay },
  });
  const listening = await server.listen({ port: 0 });
  try {
    let done = false;
    const started = performance.now();
    const replaying = fetch(`${listening.url}/inspector/api/replay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    }).then(async (response) => {
      await response.arrayBuffer();
      done = true;
      if (response.status !== 200) throw new Error(`replay answered ${response.status}`);
      return performance.now() - started;
    });
    let worst = 0;
    while (!done) {
      const asked = performance.now();
      // A fresh connection each time (a kept-alive one may be closed while the loop is blocked).
      await fetch(`${listening.url}/healthz`, { headers: { connection: 'close' } })
        .then((response) => response.arrayBuffer())
        .catch(() => undefined);
      worst = Math.max(worst, performance.now() - asked);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return { worstHealthzMs: worst, replayMs: await replaying };
  } finally {
    await listening.shutdown({ timeoutMs: 1_000 });
  }
}

const round = (ms: number) => Math.round(ms).toLocaleString('en-US');

export async function run(): Promise<void> {
  // Each row is printed as soon as it is measured (a huge overlap takes minutes).
  console.log(
    '| transcript, interval 1 | overlap 1,000,000 (ms; now a 400) | overlap 4 (ms; the largest taken) | ratio |',
  );
  console.log('|---|---:|---:|---:|');
  const bodies: Array<{ kb: number; body: string }> = [];
  for (const kb of sizesKb) {
    const { text, turns } = chatTranscript({ bytes: kb * 1000 });
    const bounded = MAX_REPLAY_OVERLAP_PER_INTERVAL;
    const hugeMs = await replayMs(text, HUGE_OVERLAP);
    const boundedMs = await replayMs(text, bounded);
    console.log(
      `| ${kb} kB (${(turns * 2).toLocaleString('en-US')} events) | ${round(hugeMs)} | ${round(boundedMs)} | ${(hugeMs / boundedMs).toFixed(1)} |`,
    );
    bodies.push({ kb, body: JSON.stringify({ transcript: text, interval: 1, overlap: bounded }) });
  }
  console.log(
    '\n| overlap 4 | in the server thread: replay ms | worst /healthz ms | in a worker: replay ms | worst /healthz ms |',
  );
  console.log('|---|---:|---:|---:|---:|');
  for (const { kb, body } of bodies) {
    const inThread = await healthzDuringReplay(inspectorReplay, body);
    const inWorker = await healthzDuringReplay(createWorkerReplay(), body);
    console.log(
      `| ${kb} kB | ${round(inThread.replayMs)} | ${round(inThread.worstHealthzMs)} | ${round(inWorker.replayMs)} | ${round(inWorker.worstHealthzMs)} |`,
    );
  }
}
