/**
 * A local Gemini `generateContent` endpoint for long scripted sessions: the agent model answers
 * from a queue the test fills turn by turn (an empty queue is a 500 and a recorded failure, like
 * the strict scripted model), the summarizer model answers with a numbered summary. Every
 * response reports usage the way Gemini does, `promptTokenCount` from the request body's size.
 * Each function call part it issues carries a `thoughtSignature`, so a test can check that the
 * client sends them back. Requests can be held open (to abort them mid-flight).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GeminiPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: { id?: string; name: string; args?: Record<string, unknown> };
  functionResponse?: { id?: string; name: string; response: Record<string, unknown> };
}

export interface GeminiContent {
  role?: string;
  parts: GeminiPart[];
}

export interface GeminiRequestBody {
  contents: GeminiContent[];
  systemInstruction?: { parts: GeminiPart[] };
  tools?: unknown[];
}

export interface ReceivedRequest {
  index: number;
  model: string;
  kind: 'agent' | 'summarizer';
  bytes: number;
  body: GeminiRequestBody;
  /** `promptTokenCount` reported back (absent when the request got no answer). */
  promptTokenCount?: number;
  status?: number;
  /** The client closed the connection before an answer was sent (an aborted fetch). */
  aborted: boolean;
}

export interface ScriptedGemini {
  baseURL: string;
  requests: ReceivedRequest[];
  /** Script failures (unexpected requests), reported by the test. */
  failures: string[];
  /** The agent's next answers, in order: the parts of one model content each. */
  enqueue(...answers: GeminiPart[][]): void;
  /** Answers still queued. */
  queued(): number;
  /** Drops the queued answers (those of a turn that was aborted). */
  clearQueue(): void;
  /**
   * Holds the next request of `kind` open until `release()`; `received` settles when it arrives,
   * `closed` when the client drops the connection. With `when`, only a request that arrives while
   * `when()` is true is held (e.g. a background compaction's, between two turns).
   */
  hold(
    kind: 'agent' | 'summarizer',
    options?: { when?: () => boolean },
  ): {
    received: Promise<ReceivedRequest>;
    closed: Promise<void>;
    release: () => void;
  };
  /** Delay of every summarizer answer, in milliseconds. */
  summarizerDelayMs: number;
  /** Summarizer requests received and not answered yet. */
  summarizerInFlight(): number;
  close(): Promise<void>;
}

/** Gemini's count is not the request's bytes / 4, but close enough to be realistic. */
export function promptTokensOf(bytes: number): number {
  return Math.ceil(bytes / 4);
}

interface Hold {
  kind: 'agent' | 'summarizer';
  received: (request: ReceivedRequest) => void;
  closed: () => void;
  gate: Promise<void>;
  when?: () => boolean;
}

export async function startScriptedGemini(options: {
  agentModel: string;
  summarizerModel: string;
}): Promise<ScriptedGemini> {
  const requests: ReceivedRequest[] = [];
  const failures: string[] = [];
  const queue: GeminiPart[][] = [];
  const holds: Hold[] = [];
  let signatures = 0;
  let summaries = 0;
  let summarizerInFlight = 0;

  const answer = (
    response: ServerResponse,
    record: ReceivedRequest,
    status: number,
    body: unknown,
  ) => {
    record.status = status;
    response.statusCode = status;
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify(body));
  };

  const handle = async (request: IncomingMessage, response: ServerResponse, raw: Buffer) => {
    const match = /\/models\/([^/:]+):generateContent$/.exec(request.url ?? '');
    if (!match) {
      failures.push(`unexpected URL ${request.url}`);
      response.statusCode = 404;
      response.end('{}');
      return;
    }
    const model = match[1]!;
    const body = JSON.parse(raw.toString('utf8')) as GeminiRequestBody;
    const kind = model === options.summarizerModel ? 'summarizer' : 'agent';
    if (kind === 'agent' && model !== options.agentModel) failures.push(`unknown model ${model}`);
    const record: ReceivedRequest = {
      index: requests.length,
      model,
      kind,
      bytes: raw.length,
      body,
      aborted: false,
    };
    requests.push(record);
    let closedEarly = false;
    const onClose = () => {
      if (!response.writableEnded) {
        closedEarly = true;
        record.aborted = true;
      }
    };
    response.on('close', onClose);

    const holdIndex = holds.findIndex(
      (candidate) => candidate.kind === kind && (candidate.when?.() ?? true),
    );
    if (holdIndex >= 0) {
      const [held] = holds.splice(holdIndex, 1);
      held!.received(record);
      response.on('close', () => {
        if (closedEarly) held!.closed();
      });
      await held!.gate;
    }
    if (kind === 'summarizer') {
      summarizerInFlight++;
      await new Promise((resolve) => setTimeout(resolve, scripted.summarizerDelayMs));
      summarizerInFlight--;
    }
    if (closedEarly) return;

    const promptTokenCount = promptTokensOf(raw.length);
    let parts: GeminiPart[];
    if (kind === 'summarizer') {
      summaries++;
      parts = [
        {
          text: `SUMMARY #${summaries}: the user is investigating checkout 5xx errors; search_logs and get_metrics were used; restart_service failed with permission denied; next: find the failing dependency.`,
        },
      ];
    } else {
      const next = queue.shift();
      if (!next) {
        failures.push(`agent request #${record.index} with an empty script`);
        answer(response, record, 500, {
          error: { code: 500, message: 'script is empty', status: 'INTERNAL' },
        });
        return;
      }
      parts = next.map((part) => {
        if (!part.functionCall) return part;
        signatures++;
        return { ...part, thoughtSignature: `sig-${signatures}` };
      });
    }
    record.promptTokenCount = promptTokenCount;
    const candidates = 40;
    answer(response, record, 200, {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: {
        promptTokenCount,
        candidatesTokenCount: candidates,
        totalTokenCount: promptTokenCount + candidates,
      },
      modelVersion: model,
      responseId: `response-${record.index}`,
    });
  };

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      handle(request, response, Buffer.concat(chunks)).catch((error: unknown) => {
        failures.push(`server error: ${String(error)}`);
        if (!response.writableEnded) {
          response.statusCode = 500;
          response.end('{}');
        }
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const scripted: ScriptedGemini = {
    baseURL: `http://127.0.0.1:${port}/v1beta`,
    requests,
    failures,
    summarizerDelayMs: 0,
    enqueue: (...answers) => {
      queue.push(...answers);
    },
    queued: () => queue.length,
    clearQueue: () => {
      queue.length = 0;
    },
    summarizerInFlight: () => summarizerInFlight,
    hold: (kind, options) => {
      let received!: (request: ReceivedRequest) => void;
      let closed!: () => void;
      let release!: () => void;
      const receivedPromise = new Promise<ReceivedRequest>((resolve) => {
        received = resolve;
      });
      const closedPromise = new Promise<void>((resolve) => {
        closed = resolve;
      });
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      holds.push({ kind, received, closed, gate, when: options?.when });
      return { received: receivedPromise, closed: closedPromise, release };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
  return scripted;
}

/**
 * What Gemini would reject, for one request: roles other than user/model, a first or last turn
 * that is not the user's, two model turns in a row, a function call turn not answered by the
 * very next turn with exactly its ids, a response whose call is not in the turn before it, more
 * than one summary (or one that is not the first content).
 */
export function geminiViolations(body: GeminiRequestBody): string[] {
  const problems: string[] = [];
  const contents = body.contents;
  if (contents.length === 0) return ['no contents'];
  contents.forEach((content, index) => {
    if (content.role !== 'user' && content.role !== 'model') {
      problems.push(`contents[${index}].role is ${String(content.role)}`);
    }
    if (content.parts.length === 0) problems.push(`contents[${index}] has no parts`);
    if (index > 0 && content.role === 'model' && contents[index - 1]!.role === 'model') {
      problems.push(`contents[${index}] is a second model turn in a row`);
    }
    const calls = content.parts.filter((part) => part.functionCall).map((p) => p.functionCall!);
    const responses = content.parts
      .filter((part) => part.functionResponse)
      .map((part) => part.functionResponse!);
    if (content.role === 'user' && calls.length > 0) {
      problems.push(`contents[${index}] (user) holds a functionCall`);
    }
    if (content.role === 'model' && responses.length > 0) {
      problems.push(`contents[${index}] (model) holds a functionResponse`);
    }
    if (content.role === 'model' && calls.length > 0) {
      const next = contents[index + 1];
      const answered = (next?.parts ?? [])
        .filter((part) => part.functionResponse)
        .map((part) => part.functionResponse!.id);
      const expected = calls.map((call) => call.id);
      if (next?.role !== 'user' || JSON.stringify(answered) !== JSON.stringify(expected)) {
        problems.push(
          `contents[${index}] calls ${JSON.stringify(expected)} answered by ${JSON.stringify(answered)}`,
        );
      }
    }
    if (responses.length > 0) {
      const previous = contents[index - 1];
      const callIds = new Set(
        (previous?.role === 'model' ? previous.parts : [])
          .filter((part) => part.functionCall)
          .map((part) => part.functionCall!.id),
      );
      for (const response of responses) {
        if (!callIds.has(response.id)) {
          problems.push(`contents[${index}] answers ${response.id}, not called just before`);
        }
      }
    }
  });
  if (contents[0]!.role !== 'user') problems.push('the first content is not the user');
  if (contents.at(-1)!.role !== 'user') problems.push('the last content is not the user');
  const summaries: number[] = [];
  contents.forEach((content, index) => {
    for (const part of content.parts) {
      if (part.text?.startsWith('Summary of the conversation so far')) summaries.push(index);
    }
  });
  if (summaries.length > 1) problems.push(`${summaries.length} summaries`);
  if (summaries.length === 1 && summaries[0] !== 0) problems.push('the summary is not first');
  return problems;
}
