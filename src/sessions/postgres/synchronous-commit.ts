/**
 * The `synchronousCommit` option of the PostgreSQL store: PostgreSQL's `synchronous_commit`,
 * applied to orrery's own writes per transaction (queries.ts: `setCommitMode`,
 * `appendEventWithCommitMode`), never to the connection or the server.
 */
import { InvalidArgumentError } from '../../events/errors.js';

/** The values of PostgreSQL's `synchronous_commit`. */
export type SynchronousCommit = 'on' | 'off' | 'local' | 'remote_write' | 'remote_apply';

const synchronousCommitValues: readonly SynchronousCommit[] = [
  'on',
  'off',
  'local',
  'remote_write',
  'remote_apply',
];

/** The option as given, checked: `undefined` keeps the server's (or role's) setting. */
export function synchronousCommitOption(value: unknown): SynchronousCommit | undefined {
  if (value === undefined) return undefined;
  if (synchronousCommitValues.includes(value as SynchronousCommit)) {
    return value as SynchronousCommit;
  }
  throw new InvalidArgumentError({
    argument: 'synchronousCommit',
    message: `must be one of ${synchronousCommitValues.join(', ')}, got ${JSON.stringify(value)}`,
    value,
  });
}
