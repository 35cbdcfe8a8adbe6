/** What every prompt a provider receives must satisfy, and how to read one. */
import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import { SUMMARY_PREFIX } from '../../../compaction/view.js';

/** Tool calls without a result after them, and results without a call before them. */
export function orphans(prompt: LanguageModelV3Prompt): string[] {
  const problems: string[] = [];
  const open = new Set<string>();
  for (const message of prompt) {
    if (message.role === 'assistant') {
      for (const part of message.content) if (part.type === 'tool-call') open.add(part.toolCallId);
    } else if (message.role === 'tool') {
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue;
        if (!open.delete(part.toolCallId)) problems.push(`result without call: ${part.toolCallId}`);
      }
    } else if (open.size > 0) {
      problems.push(
        `calls without results before a ${message.role} message: ${[...open].join(', ')}`,
      );
      open.clear();
    }
  }
  for (const id of open) problems.push(`call without result: ${id}`);
  return problems;
}

/** Whether the first non-system message is orrery's summary. */
export function startsWithSummary(prompt: LanguageModelV3Prompt): boolean {
  const first = prompt.find((message) => message.role !== 'system');
  if (first?.role !== 'user') return false;
  const part = first.content[0];
  return part?.type === 'text' && part.text.startsWith(SUMMARY_PREFIX);
}

export function systemTexts(prompt: LanguageModelV3Prompt): string[] {
  return prompt.flatMap((message) => (message.role === 'system' ? [message.content] : []));
}
