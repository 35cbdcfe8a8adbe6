/**
 * `orrery gateway`: the compaction gateway (docs/gateway.md). `serve`'s settings (port, host,
 * tokens, body limit, shutdown, log level: the same flags and `ORRERY_SERVE_*` variables), the
 * compaction settings of the environment (`ORRERY_COMPACTION_*`; the summarizer is
 * `ORRERY_COMPACTION_MODEL`'s, else the digest), and the upstream from
 * `ORRERY_GATEWAY_OPENAI_BASE_URL`, `..._ANTHROPIC_BASE_URL`, `..._GEMINI_BASE_URL`. SIGTERM or SIGINT: requests in flight finish (until
 * --shutdown-timeout), the store is closed, exit 0.
 */
import type { Command } from 'commander';
import pino from 'pino';
import { createEventsCompactionConfig } from '../compaction/config.js';
import {
  createGateway,
  DEFAULT_ANTHROPIC_BASE_URL,
  DEFAULT_GATEWAY_APP,
  DEFAULT_GATEWAY_MAX_BODY_BYTES,
  DEFAULT_GEMINI_BASE_URL,
  DEFAULT_OPENAI_BASE_URL,
} from '../gateway/create-gateway.js';
import { createDefaultSummarizer } from '../runtime/compaction/default-summarizer.js';
import { PiiRedactionPlugin } from '../runtime/plugins/pii-redaction.js';
import { ServeConfigError } from '../server/errors.js';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, SERVE_ENV, type ServeFlags } from '../server/serve-config.js';
import type { CliIo } from './io.js';
import {
  accessDescription,
  addHostOption,
  addLogStoreAndAppOptions,
  asUsageError,
  resolveServerConfig,
  serveUntilInterrupted,
} from './server-command.js';
import { openStore, redact, resolveDb } from './store.js';

export const GATEWAY_ENV = {
  openAiBaseUrl: 'ORRERY_GATEWAY_OPENAI_BASE_URL',
  anthropicBaseUrl: 'ORRERY_GATEWAY_ANTHROPIC_BASE_URL',
  geminiBaseUrl: 'ORRERY_GATEWAY_GEMINI_BASE_URL',
  redact: 'ORRERY_GATEWAY_REDACT',
  recall: 'ORRERY_GATEWAY_RECALL',
} as const;

/** `ORRERY_GATEWAY_RECALL`: `1` on every request, `header` on `x-orrery-recall: 1`, else off. */
export function recallModeOf(env: Record<string, string | undefined>): 'always' | 'header' | false {
  const value = env[GATEWAY_ENV.recall]?.trim().toLowerCase();
  if (value === 'header') return 'header';
  return flagOf(env, GATEWAY_ENV.recall) ? 'always' : false;
}

/** A yes/no variable: `1`/`true`/`yes` on, unset/`0`/`false`/`no` off, else the variable is named. */
export function flagOf(env: Record<string, string | undefined>, variable: string): boolean {
  const value = env[variable]?.trim().toLowerCase();
  if (value === undefined || value === '' || value === '0' || value === 'false' || value === 'no') {
    return false;
  }
  if (value === '1' || value === 'true' || value === 'yes') return true;
  throw new ServeConfigError({
    field: variable,
    message: `expected 1/true/yes or 0/false/no, got ${JSON.stringify(env[variable])}`,
  });
}
/** Beside `serve`'s 8000 and `inspect`'s 8010, so all can run. */
export const DEFAULT_GATEWAY_PORT = 8020;

type GatewayFlags = Omit<ServeFlags, 'devUi' | 'exclusive'> & { db?: string; app: string };

/** An upstream base URL from `variable`: an http(s) URL, or the variable is named. */
export function baseUrlOf(
  env: Record<string, string | undefined>,
  variable: string,
  fallback: string,
): string {
  const value = env[variable];
  if (value === undefined || value === '') return fallback;
  let url: URL;
  try {
    url = new URL(value);
  } catch (error) {
    throw new ServeConfigError({
      field: variable,
      message: `expected an http(s) URL, got ${JSON.stringify(value)}`,
      cause: error,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ServeConfigError({
      field: variable,
      message: `expected an http(s) URL, got ${JSON.stringify(value)}`,
    });
  }
  return value.replace(/\/+$/, '');
}

export function registerGateway(program: Command, io: CliIo): void {
  const command = program
    .command('gateway')
    .description(
      'a compaction gateway: OpenAI Chat Completions at /openai/v1/chat/completions, Anthropic Messages at /anthropic/v1/messages, Gemini at /gemini/v1beta/models/{model}:generateContent, every message stored, the history compacted before it is forwarded',
    )
    .option(
      '--port <port>',
      `port (env ${SERVE_ENV.port}; default ${DEFAULT_GATEWAY_PORT}; 0: a free one)`,
    );
  addHostOption(command)
    .option(
      '--tokens-file <path>',
      `gateway tokens and their users, lines "TOKEN USER[,USER...]" or JSON (env ${SERVE_ENV.tokensFile}; or ${SERVE_ENV.tokens}); clients send theirs in x-orrery-token`,
    )
    .option(
      '--max-body-bytes <bytes>',
      `request body limit (env ${SERVE_ENV.maxBodyBytes}; default ${DEFAULT_GATEWAY_MAX_BODY_BYTES})`,
    )
    .option(
      '--shutdown-timeout <ms>',
      `on SIGTERM, how long requests in flight may finish (env ${SERVE_ENV.shutdownTimeoutMs}; default ${DEFAULT_SHUTDOWN_TIMEOUT_MS})`,
    );
  addLogStoreAndAppOptions(command, {
    description: 'app name the gateway sessions are stored under',
    default: DEFAULT_GATEWAY_APP,
  })
    .addHelpText(
      'after',
      `
Upstreams: ${GATEWAY_ENV.openAiBaseUrl} (default ${DEFAULT_OPENAI_BASE_URL}),
  ${GATEWAY_ENV.anthropicBaseUrl} (default ${DEFAULT_ANTHROPIC_BASE_URL}),
  ${GATEWAY_ENV.geminiBaseUrl} (default ${DEFAULT_GEMINI_BASE_URL}).
Redaction: ${GATEWAY_ENV.redact}=1 masks secrets and personal data before storage.
Recall: ${GATEWAY_ENV.recall}=1 offers the recall tool on every Chat Completions request
  (answered inside the gateway), =header only on requests with x-orrery-recall: 1.
Compaction: the ORRERY_COMPACTION_* variables (threshold, byte ceiling, model of the summaries).

Examples:
  ORRERY_COMPACTION_TOKEN_THRESHOLD=8000 orrery gateway
  then point a client at http://127.0.0.1:${DEFAULT_GATEWAY_PORT}/openai/v1 with header x-orrery-session: <id>`,
    )
    .action(async (flags: GatewayFlags) => {
      const env = io.env;
      const config = await resolveServerConfig(io, {
        ...flags,
        port:
          flags.port ??
          (env[SERVE_ENV.port] === undefined ? String(DEFAULT_GATEWAY_PORT) : undefined),
      });
      const bodyLimitGiven =
        flags.maxBodyBytes !== undefined || env[SERVE_ENV.maxBodyBytes] !== undefined;
      let openAiBaseUrl: string;
      let anthropicBaseUrl: string;
      let geminiBaseUrl: string;
      let redactOn: boolean;
      let recall: 'always' | 'header' | false;
      try {
        openAiBaseUrl = baseUrlOf(env, GATEWAY_ENV.openAiBaseUrl, DEFAULT_OPENAI_BASE_URL);
        anthropicBaseUrl = baseUrlOf(env, GATEWAY_ENV.anthropicBaseUrl, DEFAULT_ANTHROPIC_BASE_URL);
        geminiBaseUrl = baseUrlOf(env, GATEWAY_ENV.geminiBaseUrl, DEFAULT_GEMINI_BASE_URL);
        redactOn = flagOf(env, GATEWAY_ENV.redact);
        recall = recallModeOf(env);
      } catch (error) {
        throw asUsageError(error);
      }
      const compaction = createEventsCompactionConfig({ env });
      const logger = pino({ level: config.logLevel }, { write: (line: string) => io.stdout(line) });
      const summarizer = createDefaultSummarizer({ env, logger });
      const db = resolveDb({ db: flags.db, io });
      const service = await openStore({ db, appName: flags.app, userId: 'orrery-gateway' });
      try {
        const gateway = createGateway({
          sessionService: service,
          compaction,
          ...(summarizer && { summarizer }),
          appName: flags.app,
          openAiBaseUrl,
          anthropicBaseUrl,
          geminiBaseUrl,
          ...(redactOn && { redaction: new PiiRedactionPlugin() }),
          recall,
          auth: { grants: config.grants },
          logger,
          maxBodyBytes: bodyLimitGiven ? config.maxBodyBytes : DEFAULT_GATEWAY_MAX_BODY_BYTES,
        });
        const listening = await gateway
          .listen({ port: config.port, host: config.host })
          .catch((error) => {
            throw asUsageError(error);
          });
        const access = accessDescription(config);
        const redactionLine = `${redactOn ? 'redaction on; ' : ''}${recall ? `recall ${recall}; ` : ''}`;
        const compacting = compaction
          ? `compaction at ${compaction.tokenThreshold ?? 'no'} tokens`
          : 'compaction off';
        io.stderr(
          `orrery gateway: ${listening.url}/openai/v1 -> ${openAiBaseUrl}, ${listening.url}/anthropic -> ${anthropicBaseUrl}, ${listening.url}/gemini -> ${geminiBaseUrl}; store ${redact(db)}, app '${flags.app}'; ${compacting}; ${redactionLine}${access}\n`,
        );
        await serveUntilInterrupted({
          io,
          name: 'orrery gateway',
          listening,
          shutdownTimeoutMs: config.shutdownTimeoutMs,
          unit: 'request',
        });
      } finally {
        await service.close?.();
      }
    });
}
