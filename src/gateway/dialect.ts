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

export interface DialectTarget {
  /** The model asked for (checked to be a non-empty string by the route). */
  model: unknown;
  stream: boolean;
  upstreamUrl: string;
}

export interface StreamAssembler {
  push(chunk: Uint8Array): void;
  finish(): StoredAnswer | undefined;
}

export interface Dialect {
  /** Metrics label and log name: `openai`, `anthropic`. */
  provider: string;
  /** The route (a Hono pattern), e.g. `/openai/v1/chat/completions`. */
  path: string;
  /**
   * Where the request goes and what it asks for: the model (OpenAI and Anthropic: the body's;
   * Gemini: the URL's), whether it streams, and the upstream URL under `baseUrl`.
   */
  target(options: {
    body: Record<string, unknown>;
    params: Readonly<Record<string, string>>;
    baseUrl: string;
  }): DialectTarget;
  /** Credentials the client sent elsewhere than a header (Gemini's `?key=`), as upstream headers. */
  credentialHeaders?(url: URL): Record<string, string>;
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
  answer(body: unknown, conversation: DialectConversation): StoredAnswer | undefined;
  assembler(conversation: DialectConversation): StreamAssembler;
  /** Whether the gateway can offer and answer `recall` in this dialect (`gateway-recall.ts`). */
  recall?: boolean;
  /** The gateway's own error in the provider's shape. */
  error(options: {
    status: number;
    message: string;
    type: string;
    param: string | null;
    code: string | null;
  }): Response;
}
