import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../events/errors.js';
import type { SessionKey } from '../../events/types.js';
import { SessionNotFoundError } from '../../sessions/errors.js';
import type { SearchEventsOptions, SearchHit } from '../../sessions/session-service.js';
import {
  functionCallEvent,
  functionResponseEvent,
  modelTextEvent,
  userTextEvent,
} from '../event-builders.js';
import { type ConformanceContext, fields, make, rejection } from './context.js';

/**
 * `searchEvents` (optional capability): natural-language queries OR-ed and ranked, tool calls
 * and results searchable, scoped by user, bounded by seq, never a syntax error.
 */
export function describeSearchEvents(context: ConformanceContext): void {
  describe('searchEvents', () => {
    function search(
      options: Omit<SearchEventsOptions, 'appName' | 'userId'>,
    ): Promise<SearchHit[]> {
      const { service, appName, userId } = context;
      if (!service.searchEvents) throw new Error('the store has no searchEvents');
      return service.searchEvents({ appName, userId, ...options });
    }

    async function say(key: SessionKey, text: string) {
      return context.service.appendEvent({ ...key, event: userTextEvent({ ...fields(), text }) });
    }

    it('ranks the event that holds the rare words first, and matches any of the words', async () => {
      const key = await context.newSession();
      await say(key, 'The weather today is sunny and warm.');
      const target = await say(key, 'We chose port 8443 for the staging gateway.');
      await say(key, 'Lunch was at the usual place near the gateway building.');
      await say(key, 'Nothing else happened today.');
      const hits = await search({
        sessionId: key.sessionId,
        query: 'Which port did we choose for staging?',
      });
      expect(hits[0]?.seq).toBe(target.seq);
      expect(hits[0]?.event).toStrictEqual(target);
      expect(hits[0]).toMatchObject({
        sessionId: key.sessionId,
        author: 'user',
        timestamp: target.timestamp,
      });
      // "gateway" alone matches two events; "all words must match" would find none for this query.
      const partial = await search({ sessionId: key.sessionId, query: 'gateway zebra unicorn' });
      expect(partial.map((hit) => hit.seq).sort()).toEqual([2, 3]);
      expect(partial[0]!.score).toBeGreaterThanOrEqual(partial[1]!.score);
    });

    it('finds tool call names, arguments and tool results, never compaction summaries', async () => {
      const key = await context.newSession();
      const call = await context.service.appendEvent({
        ...key,
        event: functionCallEvent({
          ...fields(),
          calls: [{ id: 'c1', name: 'read_file', args: { path: 'src/billing/invoice.ts' } }],
        }),
      });
      const result = await context.service.appendEvent({
        ...key,
        event: functionResponseEvent({
          ...fields(),
          responses: [
            { id: 'c1', name: 'read_file', response: { output: 'export const VAT_RATE = 0.19;' } },
          ],
        }),
      });
      await context.service.appendCompaction({
        ...key,
        event: make.compaction({ startSeq: 1, endSeq: 2, text: 'read invoice VAT_RATE billing' }),
        expectedCheckpointSeq: null,
      });
      expect((await search({ query: 'invoice' })).map((hit) => hit.seq)).toEqual([call.seq]);
      expect((await search({ query: 'vat rate' })).map((hit) => hit.seq)).toEqual([result.seq]);
      expect((await search({ query: 'read_file' })).map((hit) => hit.seq).sort()).toEqual([1, 2]);
    });

    it("never returns another user's or another app's events; without sessionId searches all the user's sessions", async () => {
      const first = await context.newSession();
      const second = await context.newSession();
      await say(first, 'the secret codename is bluefalcon');
      await say(second, 'bluefalcon was mentioned again');
      const { service, appName } = context;
      const other = { appName, userId: 'another-user', sessionId: 'other' };
      await service.createSession(other);
      await service.appendEvent({
        ...other,
        event: userTextEvent({ ...fields(), text: 'bluefalcon' }),
      });
      const otherApp = { appName: `${appName}-other`, userId: context.userId, sessionId: 'x' };
      await service.createSession(otherApp);
      await service.appendEvent({
        ...otherApp,
        event: userTextEvent({ ...fields(), text: 'bluefalcon' }),
      });
      const hits = await search({ query: 'bluefalcon' });
      expect(hits.map((hit) => hit.sessionId).sort()).toEqual(
        [first.sessionId, second.sessionId].sort(),
      );
      expect(await search({ sessionId: first.sessionId, query: 'bluefalcon' })).toHaveLength(1);
      const theirs = await service.searchEvents!({
        appName,
        userId: 'another-user',
        query: 'bluefalcon',
      });
      expect(theirs.map((hit) => hit.sessionId)).toEqual(['other']);
      await service.deleteSession({ ...otherApp });
    });

    it('keeps to beforeSeq and afterSeq (what the view left out) and to limit', async () => {
      const key = await context.newSession();
      for (let index = 1; index <= 6; index++) await say(key, `deploy step ${index} finished`);
      const before = await search({ sessionId: key.sessionId, query: 'deploy', beforeSeq: 4 });
      expect(before.map((hit) => hit.seq).sort()).toEqual([1, 2, 3]);
      const between = await search({
        sessionId: key.sessionId,
        query: 'deploy',
        afterSeq: 2,
        beforeSeq: 5,
      });
      expect(between.map((hit) => hit.seq).sort()).toEqual([3, 4]);
      expect(await search({ sessionId: key.sessionId, query: 'deploy', limit: 2 })).toHaveLength(2);
    });

    it('ranks a fixed corpus alike on every store: rare words above a name in every line', async () => {
      const key = await context.newSession();
      const lines = [
        'Caroline: I went to the support group yesterday.',
        'Melanie: That sounds great, how did it go?',
        'Caroline: It was good, the group talked about adoption.',
        'Melanie: I signed up for a pottery class last week.',
        'Caroline: Pottery sounds relaxing, Caroline approves.',
        'Melanie: We went camping at the lake with the kids.',
        'Caroline: I am researching adoption agencies now.',
        'Melanie: The kids painted a sunset at the lake.',
        'Caroline: My friend gave me a necklace from Sweden.',
        'Melanie: Camping again next month, maybe the mountains.',
      ];
      for (const line of lines) await say(key, line);
      const top = async (query: string) =>
        (await search({ sessionId: key.sessionId, query, limit: 3 })).map((hit) => hit.seq);
      // "caroline" is in half the lines: the rare word decides.
      expect((await top('What did Caroline get from Sweden?'))[0]).toBe(9);
      expect((await top('When did Melanie sign up for pottery class?'))[0]).toBe(4);
      expect(await top('Caroline adoption agencies')).toEqual([7, 3, 5]);
      expect((await top('camping lake'))[0]).toBe(6);
      expect(await top('sunset painted')).toEqual([8]);
      expect((await top('Caroline camping')).slice(0, 2).sort()).toEqual([10, 6].sort());
      expect((await top('Melanie necklace'))[0]).toBe(9);
      expect((await top('Caroline kids'))[0]).toBe(8);
    });

    it('matches inflections by stem, and paths and identifiers whole and by part', async () => {
      const key = await context.newSession();
      const append = (event: Parameters<typeof context.service.appendEvent>[0]['event']) =>
        context.service.appendEvent({ ...key, event });
      const call = (name: string, args: Record<string, unknown>) =>
        append(functionCallEvent({ ...fields(), calls: [{ id: `c${name}`, name, args }] }));
      const deployed = await say(key, 'We deployed the release to the cluster.');
      const readFoo = await call('read_file', { path: 'lib/foo.ex' });
      await say(key, 'The foo service and the ex-employee list are unrelated.');
      const readBar = await call('read_file', { path: 'lib/bar.ex' });
      const editFoo = await call('edit_file', {
        path: 'lib/foo.ex',
        old: 'def run(x), do: x',
        new: 'def run(x), do: x * 2',
        note: 'doubles the value returned by run when called by the scheduler worker',
      });
      const checkout = await say(key, 'The checkout-api returned ERR_TIMEOUT after 30 s.');
      await say(key, 'The api of the checkout page is fine; a timeout is expected there.');
      const seqs = async (query: string, limit = 3) =>
        (await search({ sessionId: key.sessionId, query, limit })).map((hit) => hit.seq);
      // Stemming: "deploying" finds "deployed".
      expect(await seqs('when are we deploying?')).toEqual([deployed.seq]);
      // A file by its whole name: the edit first, then the read; bar.ex and "foo ... ex" after.
      const foo = await seqs('what happened to foo.ex?', 10);
      expect(foo.slice(0, 2)).toEqual([editFoo.seq, readFoo.seq]);
      expect(foo.indexOf(readBar.seq)).toBeGreaterThan(1);
      // Identifiers whole rank first; their parts still match on their own.
      expect((await seqs('checkout-api'))[0]).toBe(checkout.seq);
      expect((await seqs('ERR_TIMEOUT'))[0]).toBe(checkout.seq);
      expect((await seqs('timeout', 10)).sort()).toEqual([checkout.seq, checkout.seq + 1]);
    });

    it('keeps to after and before (event timestamps) and to authors', async () => {
      const key = await context.newSession();
      const at = async (timestamp: number, author: string, text: string) =>
        context.service.appendEvent({
          ...key,
          event: { ...userTextEvent({ ...fields(), text }), timestamp, author },
        });
      const first = await at(1_000, 'user', 'invoice number one sent');
      const second = await at(2_000, 'billing-agent', 'invoice number two sent');
      const third = await at(3_000, 'user', 'invoice number three sent');
      const fourth = await at(4_000, 'auditor', 'invoice number four sent');
      const seqs = async (options: Omit<SearchEventsOptions, 'appName' | 'userId' | 'query'>) =>
        (await search({ sessionId: key.sessionId, query: 'invoice', ...options }))
          .map((hit) => hit.seq)
          .sort((a, b) => a - b);
      expect(await seqs({ after: 1_000 })).toEqual([second.seq, third.seq, fourth.seq]);
      expect(await seqs({ before: 3_000 })).toEqual([first.seq, second.seq]);
      expect(await seqs({ after: 1_500, before: 3_500 })).toEqual([second.seq, third.seq]);
      expect(await seqs({ after: 2_000.5 })).toEqual([third.seq, fourth.seq]);
      expect(await seqs({ authors: ['user'] })).toEqual([first.seq, third.seq]);
      expect(await seqs({ authors: ['billing-agent', 'auditor'] })).toEqual([
        second.seq,
        fourth.seq,
      ]);
      expect(await seqs({ authors: [] })).toEqual([]);
      expect(await seqs({ authors: ['user'], after: 1_000 })).toEqual([third.seq]);
      expect(await seqs({ authors: ['user'], after: 1_000, afterSeq: third.seq })).toEqual([]);
      // Across sessions too, and the hits carry the stored timestamp and author.
      const hits = await search({ query: 'invoice', authors: ['auditor'] });
      expect(hits.map((hit) => [hit.seq, hit.timestamp, hit.author])).toEqual([
        [fourth.seq, 4_000, 'auditor'],
      ]);
    });

    it('treats quotes, operators and punctuation as plain characters', async () => {
      const key = await context.newSession();
      const target = await say(key, 'config file: src/app-config.json (NEAR the root)');
      for (const query of [
        '"app-config',
        'config*',
        '-config',
        'NEAR(config root)',
        'src:app',
        '((config',
        "it's \\ %_ ' ;",
        'AND OR NOT',
      ]) {
        const hits = await search({ sessionId: key.sessionId, query });
        if (/config|root|app/i.test(query))
          expect(
            hits.map((hit) => hit.seq),
            query,
          ).toEqual([target.seq]);
      }
      expect(await search({ sessionId: key.sessionId, query: '   ?!  ' })).toEqual([]);
    });

    it('matches words in any script, case-insensitively', async () => {
      const key = await context.newSession();
      const german = await say(key, 'Das Büro liegt in Zürich, Bahnhofstraße 12.');
      const russian = await say(key, 'Встреча назначена на пятницу');
      const japanese = await say(key, '会議は 東京タワー で行います');
      expect((await search({ query: 'ZÜRICH' })).map((hit) => hit.seq)).toEqual([german.seq]);
      expect((await search({ query: 'встреча' })).map((hit) => hit.seq)).toEqual([russian.seq]);
      expect((await search({ query: '東京タワー' })).map((hit) => hit.seq)).toEqual([japanese.seq]);
    });

    it('finds a word in the middle of a large tool output and returns the output whole', async () => {
      const key = await context.newSession();
      const filler = 'lorem ipsum dolor sit amet '.repeat(8000);
      const output = `${filler} FATAL segfault in module quokka ${filler}`;
      const stored = await context.service.appendEvent({
        ...key,
        event: functionResponseEvent({
          ...fields(),
          responses: [{ id: 'c9', name: 'run_tests', response: { output } }],
        }),
      });
      await context.service.appendEvent({
        ...key,
        event: modelTextEvent({ ...fields(), text: 'the tests ran' }),
      });
      const hits = await search({ query: 'quokka segfault' });
      expect(hits.map((hit) => hit.seq)).toEqual([stored.seq]);
      expect(hits[0]?.event).toStrictEqual(stored);
    });

    it('finds events appended while searches run', async () => {
      const key = await context.newSession();
      const appends = Array.from({ length: 20 }, (_, index) =>
        say(key, `checkpoint marker ${index} kiwi`),
      );
      const searches = Array.from({ length: 10 }, () => search({ query: 'kiwi', limit: 100 }));
      await Promise.all([...appends, ...searches]);
      const hits = await search({ sessionId: key.sessionId, query: 'kiwi', limit: 100 });
      expect(hits.map((hit) => hit.seq).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 20 }, (_, index) => index + 1),
      );
    });

    it('names the bad option, and a missing session, with typed errors', async () => {
      const key = await context.newSession();
      const badLimit = await rejection(search({ query: 'x', limit: 0 }));
      expect(InvalidArgumentError.isInstance(badLimit) && badLimit.argument).toBe('limit');
      const badQuery = await rejection(search({ query: 42 as unknown as string }));
      expect(InvalidArgumentError.isInstance(badQuery) && badQuery.argument).toBe('query');
      const badSeq = await rejection(search({ query: 'x', beforeSeq: 1.5 }));
      expect(InvalidArgumentError.isInstance(badSeq) && badSeq.argument).toBe('beforeSeq');
      const badAfter = await rejection(search({ query: 'x', after: Number.NaN }));
      expect(InvalidArgumentError.isInstance(badAfter) && badAfter.argument).toBe('after');
      const badBefore = await rejection(
        search({ query: 'x', before: '2024' as unknown as number }),
      );
      expect(InvalidArgumentError.isInstance(badBefore) && badBefore.argument).toBe('before');
      const badAuthors = await rejection(
        search({ query: 'x', authors: 'user' as unknown as string[] }),
      );
      expect(InvalidArgumentError.isInstance(badAuthors) && badAuthors.argument).toBe('authors');
      const missing = await rejection(
        search({ sessionId: `${key.sessionId}-missing`, query: 'x' }),
      );
      expect(SessionNotFoundError.isInstance(missing)).toBe(true);
    });
  });
}
