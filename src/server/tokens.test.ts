import { describe, expect, it } from 'vitest';
import { TokenAuth } from './auth.js';
import { ServeConfigError } from './errors.js';
import { parseTokens } from './tokens.js';

const alice = 'a'.repeat(20);
const bob = 'b'.repeat(20);

describe('parseTokens', () => {
  it('reads lines with comments, one user or several, and ; separators', () => {
    const text = `# ops tokens\n${alice} alice\n\n${bob} bob,carol`;
    expect(parseTokens({ text, source: '--tokens-file' })).toEqual([
      { token: alice, userIds: ['alice'] },
      { token: bob, userIds: ['bob', 'carol'] },
    ]);
    expect(
      parseTokens({ text: `${alice} alice;${bob} bob`, source: 'ORRERY_SERVE_TOKENS' }),
    ).toHaveLength(2);
  });

  it('reads the operator role in lines and JSON; an operator token may act as no user', () => {
    expect(parseTokens({ text: `${alice} alice\n${bob} - operator`, source: 'f' })).toEqual([
      { token: alice, userIds: ['alice'] },
      { token: bob, userIds: [], roles: ['operator'] },
    ]);
    const json = JSON.stringify([{ token: bob, userIds: ['ops'], roles: ['operator'] }]);
    expect(parseTokens({ text: json, source: 'f' })).toEqual([
      { token: bob, userIds: ['ops'], roles: ['operator'] },
    ]);
    const auth = new TokenAuth({
      grants: parseTokens({ text: `${alice} alice\n${bob} - operator`, source: 'f' }),
    });
    expect(auth.authenticate(`Bearer ${alice}`)).toMatchObject({
      ok: true,
      principal: { operator: false },
    });
    expect(auth.authenticate(`Bearer ${bob}`)).toMatchObject({
      ok: true,
      principal: { operator: true },
    });
  });

  it('reads JSON as a map or as a list of grants', () => {
    expect(
      parseTokens({
        text: JSON.stringify({ [alice]: 'alice', [bob]: ['bob', 'carol'] }),
        source: 'f',
      }),
    ).toEqual([
      { token: alice, userIds: ['alice'] },
      { token: bob, userIds: ['bob', 'carol'] },
    ]);
    expect(
      parseTokens({ text: JSON.stringify([{ token: alice, userIds: ['alice'] }]), source: 'f' }),
    ).toEqual([{ token: alice, userIds: ['alice'] }]);
  });

  it.each([
    ['a short token', 'short alice', /entry 1: the token is 5 characters/],
    ['no user', `${alice}`, /line 1: expected "TOKEN USER/],
    ['too many words', `${alice} alice operator more`, /too many words/],
    ['an unknown role', `${alice} alice bob`, /line 1: roles must be a list of "operator"/],
    ['no user and no operator role', `${alice} -`, /only an operator token may have none/],
    ['an empty user', `${alice} alice,`, /non-empty user ids/],
    ['a repeated token', `${alice} alice\n${alice} bob`, /entry 2: the same token appears twice/],
    ['bad JSON', `{"${alice}": ["alice"`, /not valid JSON/],
    [
      'a JSON user id that is a number',
      JSON.stringify({ [alice]: 7 }),
      /entry 1: the user ids must be/,
    ],
  ])('refuses %s with a ServeConfigError that never shows the token', (_name, text, message) => {
    let caught: unknown;
    try {
      parseTokens({ text, source: '--tokens-file' });
    } catch (error) {
      caught = error;
    }
    expect(ServeConfigError.isInstance(caught)).toBe(true);
    const error = caught as ServeConfigError;
    expect(error.field).toBe('--tokens-file');
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain(alice);
  });
});

describe('TokenAuth', () => {
  const auth = new TokenAuth({
    grants: [
      { token: alice, userIds: ['alice'] },
      { token: bob, userIds: ['bob', 'carol'] },
    ],
  });

  it('finds the grant of a bearer token, and only of an exact one', () => {
    const result = auth.authenticate(`Bearer ${bob}`);
    expect(result.ok && [...(result.principal.userIds as Set<string>)]).toEqual(['bob', 'carol']);
    expect(result.ok && result.principal.tokenId).toMatch(/^[0-9a-f]{8}$/);
    expect(result.ok && result.principal.tokenId).not.toBe(bob.slice(0, 8));
    expect(auth.authenticate(`Bearer ${bob}x`)).toEqual({ ok: false, reason: 'unknown' });
    expect(auth.authenticate(`Bearer ${bob.slice(1)}`)).toEqual({ ok: false, reason: 'unknown' });
    expect(auth.authenticate(undefined)).toEqual({ ok: false, reason: 'missing' });
    expect(auth.authenticate(`Basic ${alice}`)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('lets everyone in when no token is configured', () => {
    expect(new TokenAuth({ grants: [] }).authenticate(undefined)).toEqual({
      ok: true,
      principal: { userIds: 'any', operator: true },
    });
  });
});
