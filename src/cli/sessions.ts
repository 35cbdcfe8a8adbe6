/** `orrery sessions list | show ID | export ID | delete ID`. */
import type { Command } from 'commander';
import { toAdkSessionJson } from '../events/adk-json.js';
import { isCompactionEvent } from '../events/event-helpers.js';
import type { Event, SessionKey } from '../events/types.js';
import { SessionNotFoundError } from '../sessions/errors.js';
import type { SessionService } from '../sessions/session-service.js';
import { plural } from '../util/plural.js';
import {
  addStoreOptions,
  integerOption,
  nonEmpty,
  type StoreFlags,
  withStore,
  writeJson,
} from './common.js';
import { CliUsageError } from './errors.js';
import type { CliIo } from './io.js';
import { clip, renderEventLine, time } from './render-event.js';
import { resolveSessionKey } from './session-lookup.js';
import { showJson } from './show-json.js';
import { creditOfCompaction, describeCredit } from './summarizer-label.js';
import { alignedTable } from './text-table.js';

export async function readFullHistory(service: SessionService, key: SessionKey): Promise<Event[]> {
  const events: Event[] = [];
  let afterSeq: number | undefined;
  for (;;) {
    const page = await service.listEvents({ ...key, afterSeq });
    events.push(...page.events);
    if (page.nextCursor === undefined || page.events.length === 0) return events;
    afterSeq = page.nextCursor;
  }
}

export async function requireSession(service: SessionService, key: SessionKey) {
  const session = await service.getSession({ ...key, events: 'view' });
  if (!session) throw new SessionNotFoundError(key);
  return session;
}

export function registerSessions(program: Command, io: CliIo): void {
  const sessions = program
    .command('sessions')
    .description('list, show, export and delete stored sessions')
    .addHelpText(
      'after',
      `
Examples:
  orrery sessions list
  orrery sessions show 7f3a…           the full history, compaction spans and summaries
  orrery sessions show 7f3a… --json    the same as JSON
  orrery sessions export 7f3a… --format adk > session.json
  orrery sessions delete 7f3a…`,
    );

  addStoreOptions(
    sessions
      .command('list')
      .description('list sessions')
      .option('--all', 'every app and user in the store (adapters store under their own)')
      .option('--json', 'print JSON'),
  ).action(async (flags: StoreFlags & { json?: boolean; all?: boolean }) => {
    await withStore(io, { ...flags, existing: true }, async (service) => {
      if (flags.all) return listAll(io, service, flags.json === true);
      const list = await service.listSessions({ appName: flags.app, userId: flags.user });
      if (flags.json) return writeJson(io, list);
      if (list.length === 0) return io.stdout(await emptyListNote(service, flags));
      const sorted = [...list].sort((a, b) => b.lastUpdateTime - a.lastUpdateTime);
      const rows = sorted.map((session) => [
        session.sessionId,
        session.eventCount.toLocaleString('en-US'),
        utc(session.lastUpdateTime),
      ]);
      const lines = alignedTable({
        headers: ['session', 'events', 'updated (UTC)'],
        rows,
        align: ['left', 'right', 'left'],
      });
      io.stdout(`${lines.join('\n')}\n`);
    });
  });

  addStoreOptions(
    sessions
      .command('show')
      .description('draw the full history: events, compaction spans and each summary')
      .argument('<id>', 'session id', nonEmpty('session id'))
      .option('--width <chars>', 'characters of each event line', integerOption('--width', 10), 100)
      .option('--json', 'print the session, its compactions and events as JSON'),
  ).action(async (sessionId: string, flags: StoreFlags & { width: number; json?: boolean }) => {
    await withStore(io, { ...flags, existing: true }, async (service) => {
      const key = await resolveSessionKey(
        service,
        { appName: flags.app, userId: flags.user, sessionId },
        { prefix: true },
      );
      const session = await requireSession(service, key);
      const events = await readFullHistory(service, key);
      const view = await service.loadView(key);
      if (flags.json) {
        return writeJson(
          io,
          showJson({ key, session, events, checkpointSeq: view.checkpoint?.seq }),
        );
      }
      const hiddenUpTo = view.checkpoint?.actions.compaction.endSeq ?? 0;
      const width = flags.width;
      const compactions = events.filter(isCompactionEvent).length;
      io.stdout(
        `session ${sessionId} · ${plural(events.length, 'event')}${compactions > 0 ? ` (${plural(compactions, 'compaction')})` : ''} · state keys: ${Object.keys(session.state).join(', ') || 'none'}\n`,
      );
      // The legend only when the gutter is drawn: a checkpoint hides events from the request.
      if (view.checkpoint) {
        io.stdout(`│ = summarized by the current checkpoint (left out of the next request)\n`);
      }
      io.stdout('\n');
      let number = 0;
      for (const event of events) {
        const compaction = event.actions.compaction;
        if (compaction && isCompactionEvent(event)) {
          number++;
          const current = view.checkpoint?.seq === event.seq ? ' (current checkpoint)' : '';
          io.stdout(
            ` ${String(event.seq).padStart(5)}  ${time(event)}  ┌─ compaction #${number}${current}: ${compaction.trigger}, seq ${compaction.startSeq}-${compaction.endSeq}, tokens ${compaction.tokensBefore.toLocaleString('en-US')} -> ${compaction.tokensAfter.toLocaleString('en-US')}, by ${describeCredit(creditOfCompaction(compaction))}\n`,
          );
          const summary = compaction.compactedContent.parts.map((part) => part.text ?? '').join('');
          const lines = summary.split('\n').filter((line) => line.trim() !== '');
          for (const line of lines.slice(0, 40))
            io.stdout(`                             │ ${clip(line, width)}\n`);
          if (lines.length > 40)
            io.stdout(
              `                             │ … ${plural(lines.length - 40, 'more line')}\n`,
            );
          io.stdout(`                             └─\n`);
          continue;
        }
        const gutter = event.seq <= hiddenUpTo ? '│' : ' ';
        io.stdout(`${gutter}${renderEventLine(event, width)}\n`);
      }
    });
  });

  addStoreOptions(
    sessions
      .command('export')
      .description('print a session as JSON')
      .argument('<id>', 'session id', nonEmpty('session id'))
      .option(
        '--format <format>',
        'adk (ADK session JSON, camelCase) | adk-snake | orrery (events with seq)',
        'adk',
      ),
  ).action(async (sessionId: string, flags: StoreFlags & { format: string }) => {
    if (!['adk', 'adk-snake', 'orrery'].includes(flags.format)) {
      throw new CliUsageError({
        field: '--format',
        message: `unknown export format ${JSON.stringify(flags.format)} (expected adk, adk-snake or orrery)`,
      });
    }
    await withStore(io, { ...flags, existing: true }, async (service) => {
      const key = await resolveSessionKey(
        service,
        { appName: flags.app, userId: flags.user, sessionId },
        { prefix: true },
      );
      const session = await requireSession(service, key);
      const events = await readFullHistory(service, key);
      if (flags.format === 'orrery') {
        return writeJson(io, {
          ...key,
          state: session.state,
          lastUpdateTime: session.lastUpdateTime,
          events,
        });
      }
      writeJson(
        io,
        toAdkSessionJson({
          session: { ...session, events: undefined },
          events,
          casing: flags.format === 'adk-snake' ? 'snake' : 'camel',
        }),
      );
    });
  });

  addStoreOptions(
    sessions
      .command('delete')
      .description('delete a session and all its events')
      .argument('<id>', 'session id', nonEmpty('session id')),
  ).action(async (sessionId: string, flags: StoreFlags) => {
    await withStore(io, { ...flags, existing: true }, async (service) => {
      const key = await resolveSessionKey(
        service,
        { appName: flags.app, userId: flags.user, sessionId },
        { prefix: false },
      );
      await requireSession(service, key);
      await service.deleteSession(key);
      io.stdout(`deleted session ${sessionId}\n`);
    });
  });
}

/** Sessions a listing across apps and users shows at most (the store's own cap). */
const LIST_ALL_LIMIT = 1000;

function utc(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('T', ' ').slice(0, 19);
}

async function listAll(io: CliIo, service: SessionService, json: boolean): Promise<void> {
  if (!service.listAllSessions) {
    throw new CliUsageError({
      field: '--all',
      message: '--all: this store cannot list sessions across apps and users',
    });
  }
  const all = await service.listAllSessions({ limit: LIST_ALL_LIMIT });
  if (json) return writeJson(io, all);
  if (all.length === 0) return io.stdout('no sessions in this store\n');
  const rows = all.map((session) => [
    session.appName,
    session.userId,
    session.sessionId,
    session.eventCount.toLocaleString('en-US'),
    session.compactionCount.toLocaleString('en-US'),
    utc(session.lastUpdateTime),
  ]);
  const lines = alignedTable({
    headers: ['app', 'user', 'session', 'events', 'compactions', 'updated (UTC)'],
    rows,
    align: ['left', 'left', 'left', 'right', 'right', 'left'],
  });
  const more = all.length === LIST_ALL_LIMIT ? `(the newest ${LIST_ALL_LIMIT} shown)\n` : '';
  io.stdout(`${lines.join('\n')}\n${more}`);
}

/** "No sessions for app and user", and what the store does hold, so the next command is clear. */
async function emptyListNote(service: SessionService, flags: StoreFlags): Promise<string> {
  const head = `no sessions for app '${flags.app}' and user '${flags.user}'`;
  const all = (await service.listAllSessions?.({ limit: LIST_ALL_LIMIT })) ?? [];
  if (all.length === 0) {
    return service.listAllSessions ? `${head}: the store holds no session at all\n` : `${head}\n`;
  }
  const groups = new Map<string, { appName: string; userId: string; count: number }>();
  for (const session of all) {
    const name = JSON.stringify([session.appName, session.userId]);
    const group = groups.get(name) ?? {
      appName: session.appName,
      userId: session.userId,
      count: 0,
    };
    group.count++;
    groups.set(name, group);
  }
  const listed = [...groups.values()]
    .sort((a, b) => b.count - a.count)
    .slice(0, 5)
    .map(
      (group) => `app '${group.appName}' user '${group.userId}': ${plural(group.count, 'session')}`,
    );
  const more = groups.size > 5 ? `; and ${groups.size - 5} more app/user pairs` : '';
  const first = [...groups.values()][0];
  const example = first ? ` (e.g. --app ${first.appName} --user ${first.userId})` : '';
  return `${head}. The store holds ${listed.join('; ')}${more}.\nSee them all: orrery sessions list --all; or pass --app and --user${example}\n`;
}
