/**
 * Who a gateway request is for. The user is the gateway token's (`x-orrery-token`; the
 * Authorization header is the client's provider key and goes upstream): a token granted several
 * users picks one with `x-orrery-user`; without tokens, `x-orrery-user` or `anonymous`. The
 * session is `x-orrery-session` when given.
 */
import type { Context } from 'hono';
import type { ServerEnv } from '../server/server-env.js';
import { GatewayRequestError } from './errors.js';

export const SESSION_HEADER = 'x-orrery-session';
export const USER_HEADER = 'x-orrery-user';
export const TOKEN_HEADER = 'x-orrery-token';
export const DEFAULT_GATEWAY_USER = 'anonymous';

const NAME = /^[A-Za-z0-9._:@-]{1,128}$/;

function header(context: Context<ServerEnv>, name: string): string | undefined {
  const value = context.req.header(name);
  if (value === undefined) return undefined;
  if (!NAME.test(value)) {
    throw new GatewayRequestError({
      field: `${name} header`,
      value,
      message: 'expected 1 to 128 letters, digits or . _ : @ -',
    });
  }
  return value;
}

export function userIdOf(context: Context<ServerEnv>): string {
  const principal = context.get('principal');
  const asked = header(context, USER_HEADER);
  if (principal.userIds === 'any') return asked ?? DEFAULT_GATEWAY_USER;
  if (asked !== undefined) {
    if (!principal.userIds.has(asked)) {
      throw new GatewayRequestError({
        field: `${USER_HEADER} header`,
        value: asked,
        message: 'this gateway token may not act as that user',
        status: 403,
      });
    }
    return asked;
  }
  const [first] = principal.userIds;
  if (first === undefined || principal.userIds.size > 1) {
    throw new GatewayRequestError({
      field: `${USER_HEADER} header`,
      value: undefined,
      message: 'this gateway token is granted several users: name one',
    });
  }
  return first;
}

export function sessionIdOf(context: Context<ServerEnv>): string | undefined {
  return header(context, SESSION_HEADER);
}
