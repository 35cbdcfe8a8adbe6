/**
 * Writes a tau-bench style file (a JSON array of runs, each `{ task_id, reward, traj }`) for the
 * multi-run import bench and test, streamed one run at a time (never held whole). Each run: a
 * system prompt, then `turns` cycles of a user request, an assistant tool call, its result and
 * an answer. Deterministic: the same file every time.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

export interface TauBenchFileOptions {
  path: string;
  runs: number;
  /** Cycles of four messages per run (default 3). */
  turns?: number;
  /** Size of each tool result's text (default 200). */
  resultBytes?: number;
}

/** One run, as tau-bench writes it. */
function tauBenchRun(options: {
  index: number;
  turns: number;
  resultBytes: number;
}): Record<string, unknown> {
  const { index, turns, resultBytes } = options;
  const traj: unknown[] = [
    { role: 'system', content: `You are airline agent ${index}. Follow the policy.` },
  ];
  for (let turn = 0; turn < turns; turn++) {
    const callId = `call_${index}_${turn}`;
    traj.push(
      { role: 'user', content: `Request ${turn} of customer ${index}: change my flight.` },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: callId,
            type: 'function',
            function: { name: 'get_reservation', arguments: JSON.stringify({ id: `R${index}` }) },
          },
        ],
      },
      {
        role: 'tool',
        tool_call_id: callId,
        name: 'get_reservation',
        content: `reservation R${index} turn ${turn} `
          .repeat(resultBytes / 24 + 1)
          .slice(0, resultBytes),
      },
      { role: 'assistant', content: `Done with request ${turn} for customer ${index}.` },
    );
  }
  return { task_id: index, reward: index % 2, info: { seed: index }, traj };
}

/** Writes the file; resolves with its size in bytes. */
export async function writeTauBenchFile(options: TauBenchFileOptions): Promise<number> {
  const stream = createWriteStream(options.path);
  let bytes = 0;
  const write = async (text: string) => {
    bytes += Buffer.byteLength(text);
    if (!stream.write(text)) await once(stream, 'drain');
  };
  await write('[\n');
  for (let index = 0; index < options.runs; index++) {
    const run = tauBenchRun({
      index,
      turns: options.turns ?? 3,
      resultBytes: options.resultBytes ?? 200,
    });
    await write(`${index === 0 ? '' : ',\n'}${JSON.stringify(run, null, 2)}`);
  }
  await write('\n]\n');
  stream.end();
  await once(stream, 'finish');
  return bytes;
}
