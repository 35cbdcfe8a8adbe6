/** `orrery config`: every effective setting and where it came from. */
import { type Command, Option } from 'commander';
import { addAgentOptions } from './agent-runner.js';
import { nonEmpty, writeJson } from './common.js';
import { describeSource, effectiveSettings } from './effective-settings.js';
import type { CliIo } from './io.js';
import { loadAgentModule } from './load-agent.js';
import { alignedTable } from './text-table.js';

interface ConfigFlags {
  agent?: string;
  model?: string;
  db?: string;
  app?: string;
  user?: string;
  json?: boolean;
}

export function registerConfig(program: Command, io: CliIo): void {
  addAgentOptions(program.command('config'))
    .description(
      'print every effective setting (compaction, models, store) and its source: default, env, agent or flag',
    )
    .addOption(
      new Option('--db <path-or-url>', 'SQLite file, or a postgres:// URL (env ORRERY_DB)'),
    )
    .option('--app <name>', 'app name sessions are scoped by', nonEmpty('--app'))
    .option('--user <id>', 'user id sessions are scoped by', nonEmpty('--user'))
    .option('--json', 'print { setting: { value, source } } as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  orrery config\n  ORRERY_COMPACTION_TOKEN_THRESHOLD=12345 orrery config --json\n  orrery config --agent examples/agent.ts --model openai:gpt-4o-mini',
    )
    .action(async (flags: ConfigFlags) => {
      const loaded =
        flags.agent === undefined ? undefined : await loadAgentModule({ path: flags.agent });
      const settings = effectiveSettings({
        env: io.env,
        flags: { model: flags.model, db: flags.db, app: flags.app, user: flags.user },
        ...(loaded && {
          agent: {
            appName: loaded.appName,
            modelId: loaded.agent.model?.modelId,
            compaction: loaded.compaction,
            hasSummarizer: loaded.summarizer !== undefined,
          },
        }),
      });
      if (flags.json) {
        writeJson(io, settings);
        return;
      }
      const rows = Object.entries(settings).map(([name, setting]) => [
        name,
        setting.value === null ? '-' : String(setting.value),
        describeSource(setting),
      ]);
      io.stdout(`${alignedTable({ headers: ['setting', 'value', 'source'], rows }).join('\n')}\n`);
    });
}
