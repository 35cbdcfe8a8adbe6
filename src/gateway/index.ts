/**
 * `orrery-runtime/gateway`: the compaction gateway to embed in your own process
 * (docs/gateway.md). `orrery gateway` is the same thing as a command.
 */
export {
  type CreateGatewayOptions,
  createGateway,
  DEFAULT_ANTHROPIC_BASE_URL,
  DEFAULT_GATEWAY_APP,
  DEFAULT_GATEWAY_MAX_BODY_BYTES,
  DEFAULT_GEMINI_BASE_URL,
  DEFAULT_OPENAI_BASE_URL,
  type OrreryGateway,
} from './create-gateway.js';
export { GatewayRequestError } from './errors.js';
export { MAX_RECALL_ROUNDS, RECALL_HEADER } from './gateway-recall.js';
export {
  DEFAULT_GATEWAY_USER,
  SESSION_HEADER,
  TOKEN_HEADER,
  USER_HEADER,
} from './request-identity.js';
