import { describe, expect, it } from 'vitest';
import { formatError } from '../../src/cli/errors.js';
import { SessionStoreError } from '../../src/index.js';
import { cli, tempDir } from './in-process.js';

const env = {
  ORRERY_MODEL: 'openai-compatible:qwen3:8b',
  ORRERY_OPENAI_COMPATIBLE_BASE_URL: 'http://admin:hunter2pw@127.0.0.1:9/v1',
};

describe('credentials in CLI errors', () => {
  it('formatError masks the message and the cause it prints', () => {
    const error = new SessionStoreError({
      message: 'cannot open the session store',
      cause: new Error(
        'connect to postgres://app:hunter2pw@db:5432/orrery failed; password=hunter2pw',
      ),
    });
    const line = formatError(error);
    expect(line).toBe(
      'SessionStoreError: cannot open the session store (connect to postgres://app:***@db:5432/orrery failed; password=[REDACTED:secret])',
    );
    expect(formatError('token=hunter2pw')).toBe('token=[REDACTED:secret]');
  });

  it('orrery run prints a model base URL without its password', async () => {
    const result = await cli(['run', 'hello', '--db', `${tempDir()}/o.db`], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('http://admin:***@127.0.0.1:9/v1');
    expect(result.stderr).not.toContain('hunter2pw');
  });

  it('orrery chat prints a failed turn without the password', async () => {
    const result = await cli(['chat', '--db', `${tempDir()}/o.db`], { env, stdin: 'hi\n' });
    expect(result.stderr).toContain('http://admin:***@127.0.0.1:9/v1');
    expect(result.stderr).not.toContain('hunter2pw');
  });

  // A malformed URL (no `:` after the scheme) is no URL to the URL rule: its user-info was
  // printed whole (issue 19, item 9).
  const malformed = {
    ...env,
    ORRERY_OPENAI_COMPATIBLE_BASE_URL: 'http//bob:S3cretPw9@127.0.0.1:33063/v1',
  };

  it('orrery run masks the password of a malformed base URL in ModelConfigError', async () => {
    const result = await cli(['run', 'hello', '--db', `${tempDir()}/o.db`], { env: malformed });
    // A configuration error: exit 2, as a usage error.
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('ModelConfigError');
    expect(result.stderr).toContain('http//bob:***@127.0.0.1:33063/v1');
    expect(result.stderr).not.toContain('S3cretPw9');
  });

  it('orrery serve masks the password of a malformed base URL in ModelConfigError', async () => {
    const result = await cli(['serve', '--port', '0', '--db', `${tempDir()}/o.db`], {
      env: malformed,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('ModelConfigError');
    expect(result.stderr).toContain('http//bob:***@127.0.0.1:33063/v1');
    expect(result.stderr).not.toContain('S3cretPw9');
  });
});
