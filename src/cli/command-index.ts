/**
 * Every command's module, imported only when that command runs, and the one line each shows in
 * `orrery --help`, so that `--help`, `--version` and a mistyped command start without loading
 * the runtime, the stores, the server, zod, prom-client or OpenTelemetry. `command-index.test.ts`
 * checks each line against the command its module registers.
 */
import type { Command } from 'commander';
import type { CliIo } from './io.js';

type Register = (program: Command, io: CliIo) => void;

export interface CommandEntry {
  /** As `orrery --help` lists it: name, `[options]`, arguments. */
  term: string;
  description: string;
  load: () => Promise<Register>;
}

/** In the order `orrery --help` lists them. */
export const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  chat: {
    term: 'chat [options]',
    description:
      'chat with the model in ORRERY_MODEL (or an --agent module); compaction runs at the environment settings',
    load: async () => (await import('./chat.js')).registerChat,
  },
  run: {
    term: 'run [options] <message>',
    description:
      'run one invocation of the agent on ORRERY_MODEL (or an --agent module) and print its events',
    load: async () => (await import('./run.js')).registerRun,
  },
  sessions: {
    term: 'sessions',
    description: 'list, show, export and delete stored sessions',
    load: async () => (await import('./sessions.js')).registerSessions,
  },
  import: {
    term: 'import [options] <file>',
    description:
      'import a transcript (ADK session, OpenAI chat, Claude Code, SWE-agent, AI SDK) as a new session',
    load: async () => (await import('./import.js')).registerImport,
  },
  view: {
    term: 'view [options] <id>',
    description: 'print the contents the next model request would hold (summary + tail)',
    load: async () => (await import('./view.js')).registerView,
  },
  compact: {
    term: 'compact [options] <id>',
    description: 'summarize everything after the checkpoint except the retained tail, now',
    load: async () => (await import('./compact.js')).registerCompact,
  },
  replay: {
    term: 'replay [options] <files...>',
    description:
      'replay transcripts through compaction and report what each model request would have held',
    load: async () => (await import('./replay.js')).registerReplay,
  },
  eval: {
    term: 'eval [options] [files...]',
    description:
      'measure how many facts survive compaction: view, view + recall, truncation, full history',
    load: async () => (await import('./eval.js')).registerEval,
  },
  config: {
    term: 'config [options]',
    description:
      'print every effective setting (compaction, models, store) and its source: default, env, agent or flag',
    load: async () => (await import('./config.js')).registerConfig,
  },
  serve: {
    term: 'serve [options]',
    description:
      "serve the agent over HTTP: ADK's API (sessions, /run, /run_sse), orrery's view/events/compact, /metrics, /healthz, /readyz",
    load: async () => (await import('./serve.js')).registerServe,
  },
  gateway: {
    term: 'gateway [options]',
    description:
      'a compaction gateway: OpenAI Chat Completions at /openai/v1/chat/completions, Anthropic Messages at /anthropic/v1/messages, Gemini at /gemini/v1beta/models/{model}:generateContent, every message stored, the history compacted before it is forwarded',
    load: async () => (await import('./gateway.js')).registerGateway,
  },
  inspect: {
    term: 'inspect [options]',
    description:
      'open the session inspector on the local store: sessions, timelines, compactions, replay',
    load: async () => (await import('./inspect.js')).registerInspect,
  },
};

/**
 * The command `argv` runs (`help NAME` included), when it is one of `COMMANDS`; `undefined` for
 * `--help`, `--version`, no command or an unknown one. The program's own options come before
 * the command and take no value: the first argument names the command, or is one of them.
 */
export function commandOf(argv: readonly string[]): string | undefined {
  const [first, second] = argv;
  const name = first === 'help' ? second : first;
  return name !== undefined && Object.hasOwn(COMMANDS, name) ? name : undefined;
}
