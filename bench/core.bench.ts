/**
 * The pure core: a turn's setup (assemble the view, estimate the next request, plan) given the
 * checkpoint + tail a store loads, for 1k / 10k / 100k-event sessions; token-estimate speed;
 * and, with datasets, the estimate's error against a BPE tokenizer on real transcripts.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encode } from 'gpt-tokenizer';
import { estimateTextTokens } from '../src/compaction/token-estimate.js';
import { estimateNextRequest, planCompaction } from '../src/compaction/triggers.js';
import type { EventsCompactionConfig } from '../src/compaction/types.js';
import { assembleView, selectCheckpoint } from '../src/compaction/view.js';
import type { CompactionEvent, Event } from '../src/events/types.js';

const TOOL_OUTPUT = `${JSON.stringify({ rows: Array.from({ length: 24 }, (_, index) => ({ id: `row-${index}`, path: `/srv/app/file${index}.ts`, size: index * 137 })) })}`;

/** A realistic session: user message, model call, ~1.5 KB tool response, model answer; a compaction every 1k events. */
function buildSession(size: number): Event[] {
  const events: Event[] = [];
  let seq = 0;
  const push = (event: Omit<Event, 'seq' | 'id' | 'timestamp'>) => {
    seq++;
    events.push({ id: `e${seq}`, seq, timestamp: 1_700_000_000 + seq, ...event });
  };
  let sinceCompaction = 0;
  for (let turn = 0; events.length < size; turn++) {
    const invocationId = `inv${turn}`;
    push({
      invocationId,
      author: 'user',
      actions: {},
      content: {
        role: 'user',
        parts: [{ text: `Check service ${turn} and report the failing files.` }],
      },
    });
    push({
      invocationId,
      author: 'agent',
      actions: {},
      content: {
        role: 'model',
        parts: [{ functionCall: { id: `c${turn}`, name: 'list_files', args: { service: turn } } }],
      },
    });
    push({
      invocationId,
      author: 'agent',
      actions: {},
      content: {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: `c${turn}`,
              name: 'list_files',
              response: { output: TOOL_OUTPUT },
            },
          },
        ],
      },
    });
    push({
      invocationId,
      author: 'agent',
      actions: {},
      usageMetadata: { promptTokenCount: 20_000 + turn },
      content: { role: 'model', parts: [{ text: `Service ${turn}: 2 files failing.` }] },
    });
    sinceCompaction += 4;
    // Every 1k events, and once ~500 events before the end: every size ends on a ~500-event tail.
    const lastStretch = events.length >= size - 500 && events.length < size - 496;
    if ((sinceCompaction >= 1000 && events.length < size - 600) || lastStretch) {
      sinceCompaction = 0;
      push({
        invocationId: `compaction${seq}`,
        author: 'user',
        actions: {
          compaction: {
            startSeq: 1,
            endSeq: seq - 20,
            startTimestamp: 0,
            endTimestamp: 0,
            compactedContent: {
              role: 'model',
              parts: [{ text: `Summary through ${seq - 20}. `.repeat(40) }],
            },
            trigger: 'token_threshold',
            tokensBefore: 0,
            tokensAfter: 0,
            summarizer: 'bench',
          },
        },
      });
    }
  }
  return events;
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function time(iterations: number, work: () => void): number {
  for (let index = 0; index < 5; index++) work();
  const samples: number[] = [];
  for (let index = 0; index < iterations; index++) {
    const started = performance.now();
    work();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

async function turnSetup(): Promise<void> {
  const config: EventsCompactionConfig = { tokenThreshold: 250_000, eventRetentionSize: 20 };
  const rows: Array<{ size: number; tail: number; ms: number; compactingMs: number }> = [];
  for (const size of [1_000, 10_000, 100_000]) {
    const events = buildSession(size);
    // What a store loads: the checkpoint and the tail after its range (an index in SQL).
    const checkpoint = selectCheckpoint(events) as CompactionEvent | undefined;
    const endSeq = checkpoint?.actions.compaction.endSeq ?? 0;
    const tail = events.filter((event) => event.seq > endSeq && !event.actions.compaction);
    const setup = (planConfig: EventsCompactionConfig) => () => {
      assembleView({ checkpoint, tail });
      estimateNextRequest({ checkpoint, tail, agentName: 'agent', overheadTokens: 2000 });
      planCompaction({
        trigger: 'token_threshold',
        config: planConfig,
        checkpoint,
        tail,
        agentName: 'agent',
      });
    };
    const ms = time(500, setup(config));
    // Over the threshold: the plan also walks the retention budget and the obligation ledger.
    const compactingMs = time(500, setup({ ...config, tokenThreshold: 1000 }));
    rows.push({ size, tail: tail.length, ms, compactingMs });
  }
  const ratio = rows[2]!.ms / rows[0]!.ms;
  const compactingRatio = rows[2]!.compactingMs / rows[0]!.compactingMs;
  console.log(
    '| session events | tail events | view + estimate + plan (below threshold), median ms | same, over threshold (split computed), median ms |',
  );
  console.log('|---:|---:|---:|---:|');
  for (const row of rows) {
    console.log(
      `| ${row.size.toLocaleString('en')} | ${row.tail} | ${row.ms.toFixed(3)} | ${row.compactingMs.toFixed(3)} |`,
    );
  }
  console.log(
    `| ratio 100k / 1k (target <= 1.5) | | ${ratio.toFixed(2)} | ${compactingRatio.toFixed(2)} |`,
  );
}

function estimateThroughput(): void {
  const sample = `${TOOL_OUTPUT} The deployment of service-42 failed at 12:03 with exit code 137. Пример текста. 数据库连接失败。\n`;
  const text = sample.repeat(Math.ceil((8 * 1024 * 1024) / sample.length));
  const ms = time(10, () => {
    estimateTextTokens(text);
  });
  const megabytes = Buffer.byteLength(text, 'utf8') / (1024 * 1024);
  console.log(
    `\nToken estimate throughput: ${(megabytes / (ms / 1000)).toFixed(0)} MB/s (${megabytes.toFixed(1)} MB in ${ms.toFixed(1)} ms)`,
  );
}

interface OpenAiMessage {
  role: string;
  content?: string | Array<{ type: string; text?: string }> | null;
  tool_calls?: Array<{ function: { name: string; arguments: string } }>;
}

function messageText(message: OpenAiMessage): string {
  let text = '';
  if (typeof message.content === 'string') text += message.content;
  else if (Array.isArray(message.content)) {
    for (const part of message.content) if (typeof part.text === 'string') text += part.text;
  }
  for (const call of message.tool_calls ?? []) text += call.function.name + call.function.arguments;
  return text;
}

async function loadTranscripts(
  datasets: string,
): Promise<Array<{ name: string; messages: OpenAiMessage[] }>> {
  const transcripts: Array<{ name: string; messages: OpenAiMessage[] }> = [];
  const openhands = join(datasets, 'openhands-swe-bench', 'llm_completions');
  for (const file of (await readdir(openhands).catch(() => [])).filter((name) =>
    name.endsWith('.json'),
  )) {
    const data = JSON.parse(await readFile(join(openhands, file), 'utf8')) as {
      messages: OpenAiMessage[];
    };
    transcripts.push({ name: `openhands/${file}`, messages: data.messages });
  }
  const tau = JSON.parse(
    await readFile(join(datasets, 'tau-bench-airline', 'gpt-4o-airline.json'), 'utf8').catch(
      () => '[]',
    ),
  ) as Array<{ task_id: number; traj: OpenAiMessage[] }>;
  tau.forEach((run, index) => {
    transcripts.push({ name: `tau/${index}`, messages: run.traj });
  });
  return transcripts;
}

async function estimateAccuracy(datasets: string): Promise<void> {
  const transcripts = await loadTranscripts(datasets);
  const groups = new Map<
    string,
    { perMessage: number[][]; totals: number[][]; messages: number }
  >();
  for (const transcript of transcripts) {
    const group = transcript.name.split('/')[0]!;
    const entry = groups.get(group) ?? { perMessage: [[], []], totals: [[], []], messages: 0 };
    groups.set(group, entry);
    let truth = 0;
    let ours = 0;
    let plain = 0;
    for (const message of transcript.messages) {
      const text = messageText(message);
      if (text.length === 0) continue;
      const real = encode(text, { disallowedSpecial: new Set() }).length;
      const estimate = estimateTextTokens(text);
      const chars = Math.ceil(text.length / 4);
      truth += real;
      ours += estimate;
      plain += chars;
      entry.messages++;
      if (real >= 20) {
        entry.perMessage[0]!.push(Math.abs(estimate - real) / real);
        entry.perMessage[1]!.push(Math.abs(chars - real) / real);
      }
    }
    if (truth > 0) {
      entry.totals[0]!.push(Math.abs(ours - truth) / truth);
      entry.totals[1]!.push(Math.abs(plain - truth) / truth);
    }
  }
  const mean = (values: number[]) =>
    values.length === 0
      ? 'n/a'
      : `${((values.reduce((sum, value) => sum + value, 0) / values.length) * 100).toFixed(1)}%`;
  console.log('\nToken estimate vs gpt-tokenizer (o200k_base): mean absolute % error');
  console.log(
    '| dataset | messages | per message: estimate | per message: chars/4 | per transcript total: estimate | per transcript total: chars/4 |',
  );
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const [name, entry] of groups) {
    console.log(
      `| ${name} | ${entry.messages} | ${mean(entry.perMessage[0]!)} | ${mean(entry.perMessage[1]!)} | ${mean(entry.totals[0]!)} | ${mean(entry.totals[1]!)} |`,
    );
  }
  console.log('(per-message rows count messages of 20+ tokens)');
}

export async function run(options: { datasets?: string }): Promise<void> {
  await turnSetup();
  estimateThroughput();
  if (options.datasets) await estimateAccuracy(options.datasets);
  else
    console.log(
      '\n(set ORRERY_DATASETS to compare the estimate with gpt-tokenizer on real transcripts)',
    );
}
