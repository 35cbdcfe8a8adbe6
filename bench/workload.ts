/**
 * The workload every benchmark shares: realistic turns (user message, model function call,
 * ~1.5 KB function response, model answer) and rolling compactions, plus timing helpers.
 */
import type { NewEvent } from '../src/events/types.js';

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export async function time(runs: number, action: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let index = 0; index < runs; index++) {
    const start = performance.now();
    await action();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

/** The nth event of a realistic turn cycle. */
export function turnEvent(index: number): NewEvent {
  const turn = Math.floor(index / 4);
  const base = {
    id: `event-${index}`,
    invocationId: `invocation-${turn}`,
    timestamp: 1_700_000_000 + index,
    actions: {},
  };
  const callId = `call-${turn}`;
  switch (index % 4) {
    case 0:
      return {
        ...base,
        author: 'user',
        content: {
          role: 'user',
          parts: [
            {
              text: `Check the status of service ${turn} and summarize the errors in its last deploy.`,
            },
          ],
        },
      };
    case 1:
      return {
        ...base,
        author: 'agent',
        content: {
          role: 'model',
          parts: [
            {
              functionCall: {
                id: callId,
                name: 'get_deploy_logs',
                args: { service: `svc-${turn}`, limit: 50 },
              },
            },
          ],
        },
        usageMetadata: {
          promptTokenCount: 12_000 + turn,
          candidatesTokenCount: 40,
          totalTokenCount: 12_040 + turn,
        },
      };
    case 2: {
      const lines = Array.from(
        { length: 20 },
        (_, line) =>
          `2025-01-01T00:00:${String(line).padStart(2, '0')}Z svc-${turn} WARN retrying request ${line} after 503`,
      );
      return {
        ...base,
        author: 'agent',
        content: {
          role: 'user',
          parts: [
            {
              functionResponse: {
                id: callId,
                name: 'get_deploy_logs',
                response: { status: 'ok', lines },
              },
            },
          ],
        },
      };
    }
    default:
      return {
        ...base,
        author: 'agent',
        content: {
          role: 'model',
          parts: [
            {
              text: `Service ${turn} deployed with 20 retried 503s from its upstream; no failed requests. Next: check the upstream's health.`,
            },
          ],
        },
        usageMetadata: {
          promptTokenCount: 13_500 + turn,
          candidatesTokenCount: 60,
          totalTokenCount: 13_560 + turn,
        },
      };
  }
}

export function compactionEvent(endSeq: number): NewEvent {
  return {
    id: `compaction-${endSeq}`,
    invocationId: `compaction-${endSeq}`,
    author: 'user',
    timestamp: 1_700_000_000 + endSeq,
    actions: {
      compaction: {
        startSeq: 1,
        endSeq,
        startTimestamp: 1_700_000_000,
        endTimestamp: 1_700_000_000 + endSeq,
        compactedContent: {
          role: 'model',
          parts: [{ text: `Summary up to ${endSeq}: ${'goal, decisions, facts. '.repeat(80)}` }],
        },
        trigger: 'token_threshold',
        tokensBefore: 200_000,
        tokensAfter: 2_000,
        summarizer: 'bench',
      },
    },
  };
}

/** The store targets, printed the same way for every store: view flat in history, far below full. */
export function printViewTargets(rows: Array<{ view: number; full: number }>): void {
  const first = rows[0]!;
  const last = rows[rows.length - 1]!;
  const viewRatio = last.view / first.view;
  const fullRatio = last.full / last.view;
  console.log(
    `\nview 100k / view 1k: ${viewRatio.toFixed(2)} (target <= 1.5) ${viewRatio <= 1.5 ? 'OK' : 'MISSED'}`,
  );
  console.log(
    `full 100k / view 100k: ${fullRatio.toFixed(0)}x (target >= 50) ${fullRatio >= 50 ? 'OK' : 'MISSED'}`,
  );
}
