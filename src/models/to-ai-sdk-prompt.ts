/**
 * orrery contents (ADK shape) to an AI SDK v3 prompt. Function responses, which ADK keeps in
 * `user` contents, become `tool` messages; consecutive messages of one role are merged so that
 * parallel calls and their responses each travel as one turn (Gemini requires as many function
 * responses in a turn as the calls it answers).
 */
import type {
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  SharedV3ProviderOptions,
} from '@ai-sdk/provider';
import { InvalidEventError } from '../events/errors.js';
import type { Content, Part } from '../events/types.js';
import type { FunctionDeclaration } from './types.js';

/**
 * Which provider understands a part's `thoughtSignature`. Signatures are opaque per provider,
 * so they are sent back only to the family that issued them.
 */
export type SignatureFamily = 'google' | 'anthropic';

/** The signature family of an AI SDK provider id such as `google.generative-ai`. */
export function signatureFamilyOf(provider: string): SignatureFamily | undefined {
  const name = provider.toLowerCase();
  // Checked first: Claude served through Vertex or Bedrock uses Anthropic's signatures.
  if (name.includes('anthropic')) return 'anthropic';
  if (name.startsWith('google') || name.includes('vertex')) return 'google';
  return undefined;
}

export interface ToAiSdkPromptOptions {
  contents: Content[];
  systemInstruction?: string;
  signatureFamily?: SignatureFamily;
}

type UserPart = Extract<LanguageModelV3Message, { role: 'user' }>['content'][number];
type AssistantPart = Extract<LanguageModelV3Message, { role: 'assistant' }>['content'][number];
type ToolPart = Extract<LanguageModelV3Message, { role: 'tool' }>['content'][number];

export function toAiSdkPrompt(options: ToAiSdkPromptOptions): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = [];
  if (options.systemInstruction !== undefined && options.systemInstruction !== '') {
    prompt.push({ role: 'system', content: options.systemInstruction });
  }
  // Call ids whose result was already sent: a long-running call's later responses go as text.
  const answered = new Set<string>();
  options.contents.forEach((content, contentIndex) => {
    content.parts.forEach((part, partIndex) => {
      const path = `contents[${contentIndex}].parts[${partIndex}]`;
      if (content.role === 'user') {
        appendUserPart(prompt, part, path, answered);
      } else if (content.role === 'model') {
        appendModelPart(prompt, part, path, options.signatureFamily);
      } else {
        throw new InvalidEventError({
          path: `contents[${contentIndex}].role`,
          message: `unknown role '${String(content.role)}' (expected 'user' or 'model')`,
          value: content.role,
        });
      }
    });
  });
  return prompt;
}

/** orrery function declarations as AI SDK function tools (JSON Schema passes through). */
export function toAiSdkTools(declarations: FunctionDeclaration[]): LanguageModelV3FunctionTool[] {
  return declarations.map((declaration) => ({
    type: 'function',
    name: declaration.name,
    description: declaration.description,
    inputSchema: declaration.parameters,
  }));
}

function appendUserPart(
  prompt: LanguageModelV3Prompt,
  part: Part,
  path: string,
  answered: Set<string>,
): void {
  if (part.functionResponse !== undefined) {
    const response = part.functionResponse;
    if (answered.has(response.id)) {
      // A second result for one call (a long-running tool's final answer after its intermediate
      // one): providers accept one tool result per call, right after it, so this one is text.
      push(prompt, 'user', {
        type: 'text',
        text: `Function response (${response.name}, call ${response.id}): ${JSON.stringify(response.response)}`,
      });
      return;
    }
    answered.add(response.id);
    push(prompt, 'tool', {
      type: 'tool-result',
      toolCallId: response.id,
      toolName: response.name,
      output: { type: 'json', value: response.response as never },
    });
  } else if (part.text !== undefined) {
    if (part.text !== '') push(prompt, 'user', { type: 'text', text: part.text });
  } else if (part.inlineData !== undefined) {
    push(prompt, 'user', {
      type: 'file',
      data: part.inlineData.data,
      mediaType: part.inlineData.mimeType,
    });
  } else if (part.fileData !== undefined) {
    push(prompt, 'user', fileDataPart(part));
  } else if (part.executableCode !== undefined || part.codeExecutionResult !== undefined) {
    push(prompt, 'user', { type: 'text', text: codeAsText(part) });
  } else if (part.functionCall !== undefined) {
    throw new InvalidEventError({
      path,
      message: `a user content cannot hold a functionCall ('${part.functionCall.name}')`,
      value: part,
    });
  }
}

function appendModelPart(
  prompt: LanguageModelV3Prompt,
  part: Part,
  path: string,
  family: SignatureFamily | undefined,
): void {
  if (part.functionCall !== undefined) {
    const call = part.functionCall;
    push(prompt, 'assistant', {
      type: 'tool-call',
      toolCallId: call.id,
      toolName: call.name,
      input: call.args,
      ...signatureOptions(part, family, 'tool-call'),
    });
  } else if (part.text !== undefined) {
    if (part.thought === true) {
      // An empty thought still matters when signed (Anthropic's omitted thinking).
      const options = signatureOptions(part, family, 'reasoning');
      if (part.text !== '' || options.providerOptions !== undefined) {
        push(prompt, 'assistant', { type: 'reasoning', text: part.text, ...options });
      }
    } else if (part.text !== '') {
      push(prompt, 'assistant', {
        type: 'text',
        text: part.text,
        ...signatureOptions(part, family, 'text'),
      });
    }
  } else if (part.inlineData !== undefined) {
    push(prompt, 'assistant', {
      type: 'file',
      data: part.inlineData.data,
      mediaType: part.inlineData.mimeType,
      ...signatureOptions(part, family, 'file'),
    });
  } else if (part.fileData !== undefined) {
    push(prompt, 'assistant', fileDataPart(part));
  } else if (part.executableCode !== undefined || part.codeExecutionResult !== undefined) {
    push(prompt, 'assistant', { type: 'text', text: codeAsText(part) });
  } else if (part.functionResponse !== undefined) {
    throw new InvalidEventError({
      path,
      message: `a model content cannot hold a functionResponse ('${part.functionResponse.name}')`,
      value: part,
    });
  }
}

/**
 * A file referenced by URI: a file part by URL when its type is known and the URI parses (the
 * provider fetches it or passes it on), else a text line naming it.
 */
function fileDataPart(part: Part): UserPart & AssistantPart {
  const file = part.fileData!;
  let url: URL | undefined;
  try {
    url = new URL(file.fileUri);
  } catch {
    url = undefined;
  }
  if (url && file.mimeType) return { type: 'file', data: url, mediaType: file.mimeType };
  const label = file.displayName ? ` (${file.displayName})` : '';
  return { type: 'text', text: `[file ${file.fileUri}${label}]` };
}

/**
 * Code a model ran, or its result, as text: the AI SDK has no part kind for either, and every
 * provider reads a fenced block.
 */
export function codeAsText(part: Part): string {
  if (part.executableCode) {
    const language = (part.executableCode.language ?? '').toLowerCase();
    const fence = language === 'language_unspecified' ? '' : language;
    return `\`\`\`${fence}\n${part.executableCode.code}\n\`\`\``;
  }
  const result = part.codeExecutionResult!;
  return `Code execution result (${result.outcome}):\n${result.output ?? ''}`;
}

function signatureOptions(
  part: Part,
  family: SignatureFamily | undefined,
  kind: 'text' | 'reasoning' | 'tool-call' | 'file',
): { providerOptions?: SharedV3ProviderOptions } {
  const signature = part.thoughtSignature;
  if (signature === undefined || signature === '') return {};
  if (family === 'google') return { providerOptions: { google: { thoughtSignature: signature } } };
  // Anthropic signs thinking blocks only.
  if (family === 'anthropic' && kind === 'reasoning') {
    return { providerOptions: { anthropic: { signature } } };
  }
  return {};
}

function push(prompt: LanguageModelV3Prompt, role: 'user', part: UserPart): void;
function push(prompt: LanguageModelV3Prompt, role: 'assistant', part: AssistantPart): void;
function push(prompt: LanguageModelV3Prompt, role: 'tool', part: ToolPart): void;
function push(
  prompt: LanguageModelV3Prompt,
  role: 'user' | 'assistant' | 'tool',
  part: UserPart | AssistantPart | ToolPart,
): void {
  const last = prompt[prompt.length - 1];
  if (last !== undefined && last.role === role) {
    (last.content as Array<typeof part>).push(part);
    return;
  }
  prompt.push({ role, content: [part] } as LanguageModelV3Message);
}
