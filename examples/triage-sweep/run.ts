/**
 * Runs the triage sweep offline and reports each branch's requests:
 *
 *   npx tsx examples/triage-sweep/run.ts                       # in memory
 *   npx tsx examples/triage-sweep/run.ts --db sweep.db         # kept in SQLite, for `orrery inspect`
 *   npx tsx examples/triage-sweep/run.ts --export sweep.json   # the session as ADK JSON
 *
 * `--export` writes the session as ADK JSON (branches kept): `orrery replay sweep.json` and
 * `orrery import` read it back. In your own project, import from 'orrery' instead.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { toAdkSessionJson } from '../../src/entries/adk-json.js';
import { estimateRequestOverhead } from '../../src/entries/compaction.js';
import {
  InMemorySessionService,
  type ModelRequest,
  Runner,
  type SessionService,
} from '../../src/index.js';
import { createTriageSweep } from './sweep.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    export: { type: 'string' },
    session: { type: 'string', default: 'incident-4711' },
  },
});

async function openStore(path: string | undefined): Promise<SessionService> {
  if (!path) return new InMemorySessionService();
  const { SqliteSessionService } = await import('../../src/sessions/sqlite/index.js');
  return new SqliteSessionService({ path });
}

/** Request bytes as the guard counts them against `maxRequestBytes`. */
function requestBytes(request: Omit<ModelRequest, 'signal'>): number {
  const overhead = estimateRequestOverhead({
    systemInstruction: request.systemInstruction,
    tools: request.tools,
  });
  return overhead.bytes + Buffer.byteLength(JSON.stringify(request.contents), 'utf8');
}

const sweep = createTriageSweep();
const sessionService = await openStore(values.db);
const key = { appName: 'triage', userId: 'oncall', sessionId: values.session ?? 'incident-4711' };
await sessionService.createSession(key);
const runner = new Runner({
  appName: key.appName,
  agent: sweep.agent,
  sessionService,
  compaction: sweep.compaction,
  summarizer: sweep.summarizer,
  logger: false,
});
for await (const _event of runner.run({ ...key, newMessage: 'Checkout is failing: triage.' })) {
  // Events are stored as they come; the report below reads the store.
}

const { events } = await sessionService.listEvents({ ...key, limit: 10_000 });
const models = [...sweep.specialistModels, ['lead', sweep.leadModel] as const];
console.log(`session ${key.sessionId}: ${events.length} events stored`);
for (const [name, model] of models) {
  const branch = name === 'lead' ? '(trunk)' : `sweep.${name}`;
  const sizes = model.calls.map(requestBytes);
  const summaries = events.filter(
    (event) => event.actions.branchCompaction && event.branch === branch,
  ).length;
  console.log(
    `${branch.padEnd(16)} requests ${String(model.calls.length).padStart(2)}  largest ${Math.max(...sizes)} bytes  branch summaries ${summaries}`,
  );
}
const lead = JSON.stringify(sweep.leadModel.calls[0]?.contents ?? []);
const verbatim = [...sweep.finalAnswers.values()].every((answer) => lead.includes(answer));
console.log(`lead's request holds every final answer verbatim: ${verbatim}`);
if (values.export) {
  const session = await sessionService.getSession(key);
  if (session) {
    const json = toAdkSessionJson({ session, events });
    writeFileSync(values.export, `${JSON.stringify(json, null, 2)}\n`);
    console.log(`wrote ${values.export}`);
  }
}
