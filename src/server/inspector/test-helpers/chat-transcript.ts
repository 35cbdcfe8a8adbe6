/**
 * A generated OpenAI-chat transcript of short user/assistant turns (each turn an invocation),
 * about `bytes` long: the replay's worst case for the sliding window (many small invocations).
 * Used by the replay limit tests and `bench/replay-server.bench.ts`.
 */
export function chatTranscript(options: { bytes: number }): { text: string; turns: number } {
  const messages: Array<{ role: string; content: string }> = [];
  let size = 0;
  let turn = 0;
  while (size < options.bytes) {
    const user = {
      role: 'user',
      content: `question ${turn}: what is the status of shard ${turn % 97}?`,
    };
    const assistant = {
      role: 'assistant',
      content: `shard ${turn % 97} is healthy; latency ${turn % 13} ms at turn ${turn}.`,
    };
    messages.push(user, assistant);
    size += JSON.stringify(user).length + JSON.stringify(assistant).length + 2;
    turn++;
  }
  return { text: JSON.stringify({ messages }), turns: turn };
}
