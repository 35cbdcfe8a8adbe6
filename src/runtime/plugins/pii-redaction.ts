import type { Content, NewEvent, Part } from '../../events/types.js';
import {
  defaultRedactionRules,
  type RedactionRule,
  redactJson,
  redactText,
} from '../../redaction/index.js';
import type { AfterToolContext, EventContext, Plugin } from './plugin.js';

export interface PiiRedactionPluginOptions {
  /**
   * Extra rules, after the defaults. A bare `RegExp` is redacted as `[REDACTED:custom]`; keep
   * its quantifiers bounded so it stays linear (see `PatternRule`).
   */
  rules?: ReadonlyArray<RedactionRule | RegExp>;
}

function redactPart(part: Part, rules: readonly RedactionRule[]): Part {
  if (part.text !== undefined) return { ...part, text: redactText(part.text, { rules }) };
  if (part.functionCall) {
    const args = redactJson(part.functionCall.args ?? {}, { rules });
    return { ...part, functionCall: { ...part.functionCall, args } };
  }
  if (part.functionResponse) {
    const response = redactJson(part.functionResponse.response ?? {}, { rules });
    return { ...part, functionResponse: { ...part.functionResponse, response } };
  }
  return part;
}

/** A redacted copy of a content: texts, call arguments, results (`rules`: a plugin's `rules`). */
export function redactContent(content: Content, rules: readonly RedactionRule[]): Content {
  return { ...content, parts: content.parts.map((part) => redactPart(part, rules)) };
}

/**
 * A redacted copy of an event: its texts (the user's, the model's, thoughts), the model's own
 * function call arguments, tool results and error message. `actions.stateDelta` is kept: state
 * is the program's working memory, read back by tools.
 */
function redactEvent(event: NewEvent, rules: readonly RedactionRule[]): NewEvent {
  const redacted: NewEvent = { ...event };
  if (event.content) {
    redacted.content = redactContent(event.content, rules);
  }
  if (event.errorMessage !== undefined) {
    redacted.errorMessage = redactText(event.errorMessage, { rules });
  }
  return redacted;
}

/**
 * Redacts secrets (keys, tokens, passwords, private keys, URL credentials) and personal data
 * (emails, phone numbers, Luhn-checked card numbers, IBANs, IP addresses, SSNs) from every event
 * before it is stored: tool results (`afterTool`, so a later cap cannot split a secret past the
 * rules) and then each event whole (`onEvent`: texts, the model's own call arguments, results),
 * so neither the session nor any summary holds them. List it before `ToolOutputCapPlugin`.
 */
export class PiiRedactionPlugin implements Plugin {
  readonly name = 'pii_redaction';
  readonly rules: readonly RedactionRule[];

  constructor(options: PiiRedactionPluginOptions = {}) {
    const extra = (options.rules ?? []).map((rule) =>
      rule instanceof RegExp ? { kind: 'custom', pattern: rule } : rule,
    );
    this.rules = [...defaultRedactionRules, ...extra];
  }

  afterTool(context: AfterToolContext): unknown {
    return redactJson(context.result, { rules: this.rules });
  }

  onEvent(context: EventContext): NewEvent {
    return redactEvent(context.event, this.rules);
  }
}
