/**
 * `provider:model` ids resolved to orrery models, with keys from the usual environment
 * variables. Provider packages and the AI SDK adapter are imported on first use, so importing
 * orrery (or checking a model id) loads none of them.
 */
import type { LanguageModelV3, SharedV3ProviderOptions } from '@ai-sdk/provider';
import type { Environment } from '../util/environment.js';
import { errorMessage } from '../util/error-message.js';
import { importOptional } from '../util/import-optional.js';
import { knownContextWindowTokens } from './context-windows.js';
import { ModelConfigError } from './errors.js';
import type { GeminiExplicitCacheOptions } from './gemini-explicit-cache.js';
import type { Model } from './types.js';

export interface ResolveModelOptions {
  /** `google:<model>`, `openai:<model>`, `anthropic:<model>` or `openai-compatible:<model>`. */
  modelId: string;
  /** Where keys and base URLs are read; defaults to `process.env`. */
  env?: Record<string, string | undefined>;
  /** Passed to the provider (tests, proxies). */
  fetch?: typeof globalThis.fetch;
  /** Overrides the known context window of the model. */
  contextWindowTokens?: number;
  /** Sent with every call (see `fromAiSdk`). */
  providerOptions?: SharedV3ProviderOptions;
  /** Prompt-cache hints (see `fromAiSdk`); default true. */
  cacheHints?: boolean;
  /**
   * `google:` models: Gemini explicit caching of the stable prefix where it pays, with the
   * resolved key, base URL and `fetch` (docs/cost.md#gemini-explicit-caching). Off by default;
   * `true` takes the default options. Ignored for other providers. Absent:
   * `ORRERY_GEMINI_EXPLICIT_CACHE` (`on`/`off`) decides.
   */
  geminiExplicitCache?: boolean | GeminiExplicitCacheOptions;
}

const GOOGLE_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';

export const knownProviders = ['google', 'openai', 'anthropic', 'openai-compatible'] as const;
export type KnownProvider = (typeof knownProviders)[number];

/** Splits `provider:model` at the first colon (Ollama tags such as `qwen3:8b` keep theirs). */
export function parseModelId(modelId: string): { provider: KnownProvider; modelName: string } {
  const colon = modelId.indexOf(':');
  const provider = colon === -1 ? '' : modelId.slice(0, colon).trim();
  const modelName = colon === -1 ? '' : modelId.slice(colon + 1).trim();
  if (provider === '' || modelName === '') {
    throw new ModelConfigError({
      variable: 'modelId',
      value: modelId,
      message: `model id '${modelId}' is malformed: expected 'provider:model', e.g. 'google:gemini-2.5-flash' (providers: ${knownProviders.join(', ')})`,
    });
  }
  if (!(knownProviders as readonly string[]).includes(provider)) {
    throw new ModelConfigError({
      variable: 'modelId',
      value: modelId,
      message: `model id '${modelId}' names unknown provider '${provider}' (known providers: ${knownProviders.join(', ')})`,
    });
  }
  return { provider: provider as KnownProvider, modelName };
}

/** Resolves a `provider:model` id to an orrery `Model` backed by the provider's AI SDK model. */
export async function resolveModel(options: ResolveModelOptions): Promise<Model> {
  const { provider, modelName } = parseModelId(options.modelId);
  const env = options.env ?? process.env;
  const languageModel = await createLanguageModel(provider, modelName, env, options.fetch);
  const { fromAiSdk } = await import('./ai-sdk-model.js');
  const settings = providerSettings(provider, modelName, env);
  // The option wins over ORRERY_GEMINI_EXPLICIT_CACHE.
  const explicit =
    options.geminiExplicitCache ??
    (settings.provider === 'google' ? settings.explicitCache : undefined);
  return fromAiSdk(languageModel, {
    modelId: `${provider}:${modelName}`,
    contextWindowTokens: options.contextWindowTokens ?? knownContextWindowTokens(modelName),
    providerOptions: options.providerOptions,
    ...(options.cacheHints === undefined ? {} : { cacheHints: options.cacheHints }),
    ...(explicit &&
      settings.provider === 'google' && {
        geminiExplicitCache: {
          ...(explicit === true ? {} : explicit),
          apiKey: settings.apiKey,
          baseURL: GOOGLE_BASE_URL,
          ...(options.fetch !== undefined && { fetch: options.fetch }),
        },
      }),
  });
}

/**
 * The checks `resolveModel` makes before importing a provider package: the id, the provider's
 * key and URL variables. Synchronous and without I/O, so a constructor can report a missing key
 * at startup. Throws `ModelConfigError` naming the variable.
 */
export function checkModelSettings(options: { modelId: string; env?: Environment }): void {
  const { provider, modelName } = parseModelId(options.modelId);
  providerSettings(provider, modelName, options.env ?? process.env);
}

type ProviderSettings =
  | { provider: 'google'; apiKey: string; explicitCache?: boolean }
  | { provider: 'openai'; apiKey: string; baseURL: string; api: 'responses' | 'chat' }
  | { provider: 'anthropic'; apiKey: string; baseURL: string }
  | { provider: 'openai-compatible'; baseURL: string; apiKey?: string };

/** Keys and URLs from `env`, checked (the synchronous half of building a provider). */
function providerSettings(
  provider: KnownProvider,
  modelName: string,
  env: Environment,
): ProviderSettings {
  switch (provider) {
    case 'google': {
      const explicitCache = onOff(env, 'ORRERY_GEMINI_EXPLICIT_CACHE');
      return {
        provider,
        apiKey: requireOneOf(env, ['GEMINI_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY'], provider),
        ...(explicitCache !== undefined && { explicitCache }),
      };
    }
    case 'openai': {
      const apiKey = requireOneOf(env, ['OPENAI_API_KEY'], provider);
      const baseURL = optionalUrl(env, 'OPENAI_BASE_URL') ?? 'https://api.openai.com/v1';
      const api = value(env, 'ORRERY_OPENAI_API') ?? 'responses';
      if (api !== 'responses' && api !== 'chat') {
        throw new ModelConfigError({
          variable: 'ORRERY_OPENAI_API',
          value: api,
          message: `ORRERY_OPENAI_API='${api}' is invalid: expected 'responses' (default) or 'chat'`,
        });
      }
      return { provider, apiKey, baseURL, api };
    }
    case 'anthropic': {
      const apiKey = requireOneOf(env, ['ANTHROPIC_API_KEY'], provider);
      const baseURL = optionalUrl(env, 'ANTHROPIC_BASE_URL') ?? 'https://api.anthropic.com/v1';
      return { provider, apiKey, baseURL };
    }
    case 'openai-compatible': {
      const variable = 'ORRERY_OPENAI_COMPATIBLE_BASE_URL';
      const baseURL = optionalUrl(env, variable);
      if (baseURL === undefined) {
        throw new ModelConfigError({
          variable,
          message: `${variable} is not set: set it to the server's OpenAI-compatible endpoint for 'openai-compatible:${modelName}', e.g. http://localhost:11434/v1 (Ollama) or http://localhost:8000/v1 (vLLM)`,
        });
      }
      return { provider, baseURL, apiKey: value(env, 'ORRERY_OPENAI_COMPATIBLE_API_KEY') };
    }
  }
}

async function createLanguageModel(
  provider: KnownProvider,
  modelName: string,
  env: Environment,
  fetch: typeof globalThis.fetch | undefined,
): Promise<LanguageModelV3> {
  const settings = providerSettings(provider, modelName, env);
  switch (settings.provider) {
    case 'google': {
      const { createGoogleGenerativeAI } = await importProvider(
        provider,
        '@ai-sdk/google',
        () => import('@ai-sdk/google'),
      );
      return createGoogleGenerativeAI({
        apiKey: settings.apiKey,
        // Explicit, so the provider never falls back to reading process.env itself.
        baseURL: GOOGLE_BASE_URL,
        ...(fetch !== undefined && { fetch }),
      })(modelName);
    }
    case 'openai': {
      const { apiKey, baseURL, api } = settings;
      const { createOpenAI } = await importProvider(
        provider,
        '@ai-sdk/openai',
        () => import('@ai-sdk/openai'),
      );
      const openai = createOpenAI({ apiKey, baseURL, ...(fetch !== undefined && { fetch }) });
      return api === 'chat' ? openai.chat(modelName) : openai.responses(modelName);
    }
    case 'anthropic': {
      const { apiKey, baseURL } = settings;
      const { createAnthropic } = await importProvider(
        provider,
        '@ai-sdk/anthropic',
        () => import('@ai-sdk/anthropic'),
      );
      return createAnthropic({ apiKey, baseURL, ...(fetch !== undefined && { fetch }) })(modelName);
    }
    case 'openai-compatible': {
      const { createOpenAICompatible } = await importProvider(
        provider,
        '@ai-sdk/openai-compatible',
        () => import('@ai-sdk/openai-compatible'),
      );
      return createOpenAICompatible({
        name: 'openai-compatible',
        baseURL: settings.baseURL,
        apiKey: settings.apiKey,
        includeUsage: true,
        ...(fetch !== undefined && { fetch }),
      })(modelName);
    }
  }
}

/** A provider package, or a `ModelConfigError` naming the package to install. */
function importProvider<Module>(
  provider: KnownProvider,
  packageName: string,
  load: () => Promise<Module>,
): Promise<Module> {
  return importOptional({
    packageName,
    load,
    toError: ({ missing, cause }) =>
      new ModelConfigError({
        variable: 'modelId',
        value: provider,
        message: missing
          ? `provider '${provider}' needs the package '${packageName}': npm install ${packageName}`
          : `provider '${provider}': could not load '${packageName}': ${errorMessage(cause)}`,
        cause,
      }),
  });
}

function value(env: Environment, variable: string): string | undefined {
  const raw = env[variable]?.trim();
  return raw === undefined || raw === '' ? undefined : raw;
}

/** `true`/`1`/`on` or `false`/`0`/`off` (any case), unset or empty: `undefined`. */
function onOff(env: Environment, variable: string): boolean | undefined {
  const raw = value(env, variable);
  if (raw === undefined) return undefined;
  const word = raw.toLowerCase();
  if (['true', '1', 'on'].includes(word)) return true;
  if (['false', '0', 'off'].includes(word)) return false;
  throw new ModelConfigError({
    variable,
    value: raw,
    message: `${variable}='${raw}' is invalid: expected on, off, true, false, 1 or 0`,
  });
}

function requireOneOf(env: Environment, variables: string[], provider: KnownProvider): string {
  for (const variable of variables) {
    const found = value(env, variable);
    if (found !== undefined) return found;
  }
  const names = variables.join(' or ');
  throw new ModelConfigError({
    variable: variables[0] ?? '',
    message: `no API key for provider '${provider}': set ${names}`,
  });
}

function optionalUrl(env: Environment, variable: string): string | undefined {
  const raw = value(env, variable);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch (error) {
    throw new ModelConfigError({
      variable,
      value: raw,
      message: `${variable}='${raw}' is not a valid URL (expected e.g. http://localhost:11434/v1)`,
      // Not Node's own error: its `input` holds the raw URL, password and all.
      cause: new TypeError(error instanceof Error ? error.message : 'Invalid URL'),
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ModelConfigError({
      variable,
      value: raw,
      message: `${variable}='${raw}' must be an http or https URL`,
    });
  }
  return raw;
}
