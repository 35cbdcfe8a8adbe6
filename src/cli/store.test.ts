import { describe, expect, it } from 'vitest';
import { SessionStoreError } from '../sessions/errors.js';
import { postgresStoreOptions } from './store.js';

describe('postgresStoreOptions', () => {
  it('takes orrery’s schema out of the URL and leaves the rest to the driver', () => {
    expect(
      postgresStoreOptions('postgres://app:secret@db:5432/orrery?schema=tenant_a&sslmode=require'),
    ).toEqual({
      connectionString: 'postgres://app:secret@db:5432/orrery?sslmode=require',
      schema: 'tenant_a',
    });
  });

  it('keeps a URL without a schema as it is (the store uses public)', () => {
    const url = 'postgresql://postgres@127.0.0.1:5432/test';
    expect(postgresStoreOptions(url)).toEqual({ connectionString: url });
  });

  it('refuses a URL it cannot parse with a store error, its password masked', () => {
    const call = () => postgresStoreOptions('postgres://app:secret@db:99999999/orrery');
    expect(call).toThrow(SessionStoreError);
    expect(call).toThrow(
      'cannot open the session store postgres://app:***@db:99999999/orrery: not a valid PostgreSQL URL',
    );
  });
});
