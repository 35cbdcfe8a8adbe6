/** The prompt sent for a prepared call: the app's system messages, then the view's contents. */
import type { LanguageModelV3Message, LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { Content } from '../../events/types.js';
import { signatureFamilyOf, toAiSdkPrompt } from '../../models/to-ai-sdk-prompt.js';

export type SystemMessage = Extract<LanguageModelV3Message, { role: 'system' }>;
export type NonSystemMessage = Exclude<LanguageModelV3Message, { role: 'system' }>;

export function splitPrompt(prompt: LanguageModelV3Prompt): {
  system: SystemMessage[];
  messages: NonSystemMessage[];
  systemInstruction: string;
} {
  const system = prompt.filter((message): message is SystemMessage => message.role === 'system');
  const messages = prompt.filter(
    (message): message is NonSystemMessage => message.role !== 'system',
  );
  return {
    system,
    messages,
    systemInstruction: system.map((message) => message.content).join('\n\n'),
  };
}

/** `original` when `contents` is `undefined` (the view is the app's messages), else the view. */
export function promptFor(options: {
  original: LanguageModelV3Prompt;
  system: readonly SystemMessage[];
  contents: Content[] | undefined;
  provider: string;
}): LanguageModelV3Prompt {
  if (options.contents === undefined) return options.original;
  return [
    ...options.system,
    ...toAiSdkPrompt({
      contents: options.contents,
      signatureFamily: signatureFamilyOf(options.provider),
    }),
  ];
}
