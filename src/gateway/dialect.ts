/**
 * What differs between the providers the gateway serves: where the history is in the body, how
 * a message becomes a content and back, the answer's shape (whole and streamed), the headers
 * that go upstream, and the error shape. `provider-route.ts` does the rest the same way for all.
 */
import type { ActiveView } from '../compaction/view.js';
import type { Content, UsageMetadata } from '../events/types.js';

/** The upstream's answer as orrery stores it: one model content and the provider's usage. */
export interface StoredAnswer {
  content: Content;
  usageMetadata?: UsageMetadata;
}

/** A request's conversation: its non-instruction messages, and their contents index for index. */
export interface DialectConversation {
  messages: Record<string, unknown>[];
  contents: Content[];
  /** Messages forwarded before the view as they are (OpenAI's system messages). */
  instructions: Record<string, unknown>[];
  /** The instruction's text (system prompt), for the request overhead's estimate. */
  instruction: string;
  tools: readonly unknown[];
}

export interface StreamAssembler {
  push(chunk: Uint8Array): void;
  finish(): StoredAnswer | undefined;
}

export interface Dialect {
  /** Metrics label and log name: `openai`, `anthropic`. */
  provider: string;
  /** The route, e.g. `/openai/v1/chat/completions`. */
  path: string;
  /** The upstream URL for a base URL. */
  upstreamUrl(baseUrl: string): string;
  /** Request headers forwarded upstream (credentials and the provider's own). */
  forwardedHeaders: readonly string[];
  /** Response headers returned besides the body's type. */
  returnedHeaders: readonly string[];
  /** The body's conversation; throws `GatewayRequestError` naming a bad field. */
  conversation(body: Record<string, unknown>): DialectConversation;
  /** The body to forward: the client's, with its history replaced by the view. */
  forwardBody(options: {
    body: Record<string, unknown>;
    conversation: DialectConversation;
    view: ActiveView;
  }): Record<string, unknown>;
  /** A whole answer's stored form, or `undefined` when it holds none. */
  answer(body: unknown): StoredAnswer | undefined;
  assembler(): StreamAssembler;
  /** The gateway's own error in the provider's shape. */
  error(options: {
    status: number;
    message: string;
    type: string;
    param: string | null;
    code: string | null;
  }): Response;
}
