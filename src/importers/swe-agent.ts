/**
 * SWE-agent trajectories (`*.traj`): the `history` list is what the model saw. Function-calling
 * runs carry OpenAI `tool_calls` and `tool_call_ids` (ids are reused: renamed and paired by
 * position); older runs carry the command only as the assistant's `action` string and the
 * observation as the next `user` message: the action becomes a call (`bash`, or the SWE-agent
 * command it starts with) with a generated id, and the observation its result.
 */
import type { Part } from '../events/types.js';
import { ImportError } from './errors.js';
import { isRecord, parseArguments, parseJsonInput } from './json-input.js';
import { contentParts } from './openai-chat.js';
import { type BuilderCall, TranscriptBuilder } from './transcript-builder.js';
import type { ImportOptions, ImportResult } from './types.js';

const FORMAT = 'swe-agent';

/** SWE-agent's own commands; any other action runs in the shell. */
const SWE_AGENT_COMMANDS = new Set([
  'open',
  'goto',
  'scroll_up',
  'scroll_down',
  'create',
  'edit',
  'insert',
  'search_dir',
  'search_file',
  'find_file',
  'submit',
  'str_replace_editor',
  'filemap',
  'exit_forfeit',
  'skip',
]);

export function importSweAgent(input: string | unknown, options: ImportOptions = {}): ImportResult {
  const document = parseJsonInput(input, FORMAT);
  if (!isRecord(document) || !Array.isArray(document.history)) {
    throw new ImportError({
      message: 'a SWE-agent trajectory needs a `history` array',
      path: 'history',
      format: FORMAT,
    });
  }
  const builder = new TranscriptBuilder({ ...options, format: FORMAT });
  const instructions: string[] = [];
  // An action without `tool_calls` waits for the next user message as its observation.
  let awaitingObservation = false;

  document.history.forEach((message, index) => {
    const location = `history[${index}]`;
    if (!isRecord(message)) {
      throw new ImportError({
        message: 'a history item must be an object',
        path: location,
        format: FORMAT,
      });
    }
    const role = message.role;
    if (role === 'system') {
      instructions.push(textOf(message.content, `${location}.content`));
      return;
    }
    if (role === 'assistant') {
      const parts: Part[] = contentParts(message.content ?? '', `${location}.content`);
      let calls: BuilderCall[] = [];
      if (Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
        calls = message.tool_calls.map((call, callIndex) => {
          const fn = isRecord(call) && isRecord(call.function) ? call.function : undefined;
          if (!fn || typeof fn.name !== 'string') {
            throw new ImportError({
              message: 'a tool call needs a function name',
              path: `${location}.tool_calls[${callIndex}].function.name`,
              format: FORMAT,
            });
          }
          const id = isRecord(call) && typeof call.id === 'string' ? call.id : undefined;
          return { id, name: fn.name, args: parseArguments(fn.arguments) };
        });
        awaitingObservation = false;
      } else if (typeof message.action === 'string' && message.action.trim() !== '') {
        calls = [actionCall(message.action)];
        awaitingObservation = true;
      } else {
        awaitingObservation = false;
      }
      builder.modelMessage({ parts, calls, location });
      return;
    }
    if (role === 'tool') {
      const ids = Array.isArray(message.tool_call_ids) ? message.tool_call_ids : [];
      const callId = typeof ids[0] === 'string' ? ids[0] : undefined;
      builder.toolResults({
        results: [{ callId, response: { result: textOf(message.content, `${location}.content`) } }],
        location,
      });
      awaitingObservation = false;
      return;
    }
    if (role === 'user') {
      const text = textOf(message.content, `${location}.content`);
      if (awaitingObservation) {
        builder.toolResults({ results: [{ response: { result: text } }], location });
        awaitingObservation = false;
      } else {
        builder.userMessage({ parts: [{ text }], location });
      }
      return;
    }
    throw new ImportError({
      message: `unknown role ${JSON.stringify(role)} (expected system, user, assistant or tool)`,
      path: `${location}.role`,
      format: FORMAT,
    });
  });

  const { events, repairs } = builder.finish();
  const result: ImportResult = { events, repairs, meta: { format: FORMAT } };
  if (instructions.length > 0) result.meta.systemInstruction = instructions.join('\n\n');
  const info = isRecord(document.info) ? document.info : undefined;
  const modelStats = isRecord(info?.model_stats) ? info.model_stats : undefined;
  if (typeof modelStats?.model === 'string') result.meta.model = modelStats.model;
  const environment = document.environment;
  if (typeof environment === 'string') result.meta.sourceId = environment;
  return result;
}

function actionCall(action: string): BuilderCall {
  const command = action.trim().split(/\s+/)[0] ?? '';
  const name = SWE_AGENT_COMMANDS.has(command) ? command : 'bash';
  return { name, args: { command: action } };
}

function textOf(content: unknown, path: string): string {
  return contentParts(content ?? '', path)
    .map((part) => part.text ?? '')
    .join('');
}
