import { stdSerializers } from 'pino';
import { QueryFailedError } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { logSafeError } from './log-safe-error.js';

function pgError(): Error {
  return Object.assign(new Error('invalid input syntax for type uuid: "ana@example.com"'), {
    name: 'error',
    code: '22P02',
    severity: 'ERROR',
    detail: 'Key (email)=(ana@example.com) already exists.',
    routine: 'string_to_uuid',
  });
}

describe('logSafeError', () => {
  it('logs a database error by SQLSTATE and statement, never its parameters, detail or message', () => {
    const err = new QueryFailedError(
      'SELECT * FROM portal_users WHERE id = $1',
      ['ana@example.com', 'pat_secret'],
      pgError(),
    );
    const logged = JSON.stringify(logSafeError(err));
    expect(JSON.parse(logged)).toEqual({
      type: 'QueryFailedError',
      sqlState: '22P02',
      routine: 'string_to_uuid',
      statement: 'SELECT * FROM portal_users WHERE id = $1',
    });
    expect(logged).not.toContain('ana@example.com');
    expect(logged).not.toContain('pat_secret');
    expect(JSON.stringify(logSafeError(pgError()))).not.toContain('ana@example.com');
    // As pino-http calls it: with pino's serialization of the error, the error itself in `raw`.
    const viaPino = logSafeError(stdSerializers.err(err));
    expect(JSON.stringify(viaPino)).not.toContain('ana@example.com');
    expect(viaPino).toMatchObject({ sqlState: '22P02' });
  });

  it('keeps other errors by type, message and stack, cleaning a database error in their cause', () => {
    const wrapped = new Error('history batch failed', {
      cause: new QueryFailedError('INSERT INTO mcp_tool_calls …', ['secret-client'], pgError()),
    });
    const logged = logSafeError(wrapped);
    expect(logged).toMatchObject({
      type: 'Error',
      message: 'history batch failed',
      cause: { sqlState: '22P02' },
    });
    expect(JSON.stringify(logged)).not.toContain('secret-client');
  });
});
