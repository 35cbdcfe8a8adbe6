/**
 * Bearer tokens and the users each may act as. Read from a file (`--tokens-file`) or a
 * variable (`ORRERY_SERVE_TOKENS`), as JSON or as lines:
 *
 *   # token              user ids   roles
 *   4f1c…e9  alice
 *   9a77…02  bob,carol
 *   c3d0…41  -          operator
 *
 * JSON: `{ "<token>": "alice" | ["bob", "carol"] }` or
 * `[{ "token": "…", "userIds": [...], "roles": ["operator"] }]`. The one role is `operator`:
 * it reads `/metrics` (the whole server's figures), which user tokens do not. An operator token
 * may act as no user (`-` in lines, `[]` in JSON).
 * In the variable, entries may also be separated by `;`. A bad entry is named by its line or
 * index, never by its token.
 */
import { ServeConfigError } from './errors.js';

/** Shorter tokens are refused: they could be guessed. */
export const MIN_TOKEN_LENGTH = 16;

export interface TokenGrant {
  token: string;
  /** The user ids the token may read, list, run and delete sessions of. */
  userIds: string[];
  /** `operator`: may read `/metrics`. Default none. */
  roles?: TokenRole[];
}

export const TOKEN_ROLES = ['operator'] as const;
export type TokenRole = (typeof TOKEN_ROLES)[number];

function isRole(value: unknown): value is TokenRole {
  return (TOKEN_ROLES as readonly unknown[]).includes(value);
}

export function parseTokens(options: { text: string; source: string }): TokenGrant[] {
  const text = options.text.trim();
  const grants =
    text.startsWith('{') || text.startsWith('[')
      ? parseJsonTokens(text, options.source)
      : parseTokenLines(text, options.source);
  const seen = new Set<string>();
  for (const [index, grant] of grants.entries()) {
    const where = `${options.source} entry ${index + 1}`;
    if (grant.token.length < MIN_TOKEN_LENGTH) {
      throw new ServeConfigError({
        field: options.source,
        message: `${where}: the token is ${grant.token.length} characters; use at least ${MIN_TOKEN_LENGTH} random ones (e.g. openssl rand -hex 32)`,
      });
    }
    if (/\s/.test(grant.token)) {
      throw new ServeConfigError({
        field: options.source,
        message: `${where}: the token holds whitespace`,
      });
    }
    const operator = grant.roles?.includes('operator') ?? false;
    if (
      (grant.userIds.length === 0 && !operator) ||
      grant.userIds.some((userId) => userId.trim() === '')
    ) {
      throw new ServeConfigError({
        field: options.source,
        message: `${where}: give the token one or more non-empty user ids (only an operator token may have none)`,
      });
    }
    if (seen.has(grant.token)) {
      throw new ServeConfigError({
        field: options.source,
        message: `${where}: the same token appears twice`,
      });
    }
    seen.add(grant.token);
  }
  return grants;
}

function parseTokenLines(text: string, source: string): TokenGrant[] {
  const grants: TokenGrant[] = [];
  for (const [index, raw] of text.split(/\r?\n|;/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const [token, users, roles, ...rest] = line.split(/\s+/);
    if (!token || !users || rest.length > 0) {
      throw new ServeConfigError({
        field: source,
        message: `line ${index + 1}: expected "TOKEN USER[,USER...] [ROLE]" (${rest.length > 0 ? 'too many words' : 'no user id'})`,
      });
    }
    grants.push({
      token,
      userIds: users === '-' ? [] : users.split(',').map((userId) => userId.trim()),
      ...(roles === undefined
        ? {}
        : { roles: rolesOf(roles.split(','), `line ${index + 1}`, source) }),
    });
  }
  return grants;
}

function parseJsonTokens(text: string, source: string): TokenGrant[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // The parser's message can quote the text (a token): say only where.
    const position = /position (\d+)/.exec(String(error))?.[1];
    throw new ServeConfigError({
      field: source,
      message: `not valid JSON${position === undefined ? '' : ` (at character ${position})`}`,
    });
  }
  const userIdsOf = (entry: unknown, where: string): string[] => {
    if (typeof entry === 'string') return [entry];
    if (Array.isArray(entry) && entry.every((item) => typeof item === 'string')) return entry;
    throw new ServeConfigError({
      field: source,
      message: `${where}: the user ids must be a string or an array of strings`,
    });
  };
  if (Array.isArray(value)) {
    return value.map((entry, index) => {
      const where = `entry ${index + 1}`;
      if (entry === null || typeof entry !== 'object' || typeof entry.token !== 'string') {
        throw new ServeConfigError({
          field: source,
          message: `${where}: expected { "token": "...", "userIds": [...] }`,
        });
      }
      const roles = entry.roles === undefined ? undefined : rolesOf(entry.roles, where, source);
      return {
        token: entry.token,
        userIds: userIdsOf(entry.userIds ?? entry.userId, where),
        ...(roles === undefined ? {} : { roles }),
      };
    });
  }
  if (value === null || typeof value !== 'object') {
    throw new ServeConfigError({
      field: source,
      message: 'expected an object { "<token>": ["user", ...] } or an array of { token, userIds }',
    });
  }
  return Object.entries(value).map(([token, users], index) => ({
    token,
    userIds: userIdsOf(users, `entry ${index + 1}`),
  }));
}

function rolesOf(value: unknown, where: string, source: string): TokenRole[] {
  if (Array.isArray(value) && value.every(isRole)) return value;
  throw new ServeConfigError({
    field: source,
    message: `${where}: roles must be a list of ${TOKEN_ROLES.map((role) => `"${role}"`).join(', ')}`,
  });
}
