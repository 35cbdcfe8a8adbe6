/**
 * What a call says about its conversation: `providerOptions.orrery.conversationId` (and an
 * optional `userId`). A call without a conversation id is not orrery's: it passes untouched.
 */
import type { SharedV3ProviderOptions } from '@ai-sdk/provider';
import { AdapterOptionError } from '../shared/adapter-option-error.js';

/** The `providerOptions` namespace the adapter reads (and removes before the provider sees it). */
export const PROVIDER_OPTIONS_KEY = 'orrery';

export interface ConversationRef {
  conversationId: string;
  userId?: string;
}

function readId(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new AdapterOptionError({
      field,
      value,
      message: `expected a non-empty string, got ${JSON.stringify(value)}`,
    });
  }
  return value;
}

/** The conversation a call belongs to, or `undefined` (pass the call through). */
export function conversationOf(
  providerOptions: SharedV3ProviderOptions | undefined,
): ConversationRef | undefined {
  const options = providerOptions?.[PROVIDER_OPTIONS_KEY];
  if (options === undefined) return undefined;
  const conversationId = readId(options.conversationId, 'providerOptions.orrery.conversationId');
  if (conversationId === undefined) return undefined;
  const userId = readId(options.userId, 'providerOptions.orrery.userId');
  return userId === undefined ? { conversationId } : { conversationId, userId };
}

/** `providerOptions` without orrery's namespace (`undefined` when nothing else is left). */
export function withoutOrreryOptions(
  providerOptions: SharedV3ProviderOptions | undefined,
): SharedV3ProviderOptions | undefined {
  if (providerOptions === undefined) return undefined;
  const { [PROVIDER_OPTIONS_KEY]: _orrery, ...rest } = providerOptions;
  return Object.keys(rest).length === 0 ? undefined : rest;
}
