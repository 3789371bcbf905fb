import {
  context,
  createContextKey,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type ContextManager,
} from '@opentelemetry/api';
import { tracing } from '@opentelemetry/sdk-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { operationOf, sqlErrorType, traceStatements } from './pg-spans.js';

/** Synchronous `with` only: enough to tell which context a callback runs in. */
class StackContextManager implements ContextManager {
  private current: Context = ROOT_CONTEXT;
  active(): Context {
    return this.current;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const before = this.current;
    this.current = ctx;
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.current = before;
    }
  }
  bind<T>(_ctx: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.current = ROOT_CONTEXT;
    return this;
  }
}

type Done = (err: Error | null, result?: { rows: unknown[] }) => void;
const CALLER = createContextKey('the caller');

/** pg's `Client.query` signatures, answered at once (a string, a config, a callback or not). */
class FakeClient {
  connectionParameters = { database: 'app', host: '127.0.0.1', port: 5432, user: 'secret-user' };
  failWith: Error | undefined;
  sent: unknown[] = [];
  query(config: unknown, values?: unknown, callback?: unknown): unknown {
    this.sent.push(config);
    const done = [values, callback].find((v): v is Done => typeof v === 'function');
    const err = this.failWith ?? null;
    if (done !== undefined) {
      // As pg does: from its socket's events, outside the caller's context.
      context.with(ROOT_CONTEXT, () => done(err, err === null ? { rows: [] } : undefined));
      return undefined;
    }
    return err === null ? Promise.resolve({ rows: [] }) : Promise.reject(err);
  }
}

describe('traceStatements', () => {
  const exporter = new tracing.InMemorySpanExporter();
  const provider = new tracing.BasicTracerProvider({
    spanProcessors: [new tracing.SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('test');
  let registered = false;
  let untrace: () => void;
  let client: FakeClient;

  beforeEach(() => {
    registered = context.setGlobalContextManager(new StackContextManager());
    untrace = traceStatements(FakeClient, tracer);
    client = new FakeClient();
    exporter.reset();
  });
  afterEach(() => {
    untrace();
    if (registered) context.disable();
  });

  function spanNamed(name: string): tracing.ReadableSpan | undefined {
    return exporter.getFinishedSpans().find((s) => s.name === name);
  }

  function inRequest<T>(fn: () => T): T {
    const request = tracer.startSpan('POST /mcp');
    const ctx = trace.setSpan(ROOT_CONTEXT, request).setValue(CALLER, 'request');
    try {
      return context.with(ctx, fn);
    } finally {
      request.end();
    }
  }

  it('makes one CLIENT span per statement under a span, with its text and never its parameters', async () => {
    await inRequest(() =>
      client.query({ text: '  select * from accounts where id = $1', values: ['a@b.example'] }),
    );
    const statement = spanNamed('pg.query:SELECT app');
    const request = spanNamed('POST /mcp');
    expect(statement?.kind).toBe(SpanKind.CLIENT);
    expect(statement?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
    expect(statement?.attributes).toEqual({
      'db.system.name': 'postgresql',
      'db.namespace': 'app',
      'server.address': '127.0.0.1',
      'server.port': 5432,
      'db.query.text': '  select * from accounts where id = $1',
    });
    expect(JSON.stringify(statement?.attributes)).not.toMatch(/a@b\.example|secret-user/);
  });

  it('makes none outside a trace, and sends the statement unchanged either way', async () => {
    await client.query('SELECT 1');
    expect(exporter.getFinishedSpans()).toEqual([]);
    const config = { text: 'SELECT 2', values: [1] };
    await inRequest(() => client.query(config));
    expect(client.sent).toEqual(['SELECT 1', config]);
  });

  it('ends the span before a callback, which runs in the caller’s context', async () => {
    const seen = await new Promise<unknown>((resolve) => {
      inRequest(() =>
        client.query('INSERT INTO t VALUES ($1)', [1], () => {
          resolve(context.active().getValue(CALLER));
        }),
      );
    });
    expect(seen).toBe('request');
    expect(exporter.getFinishedSpans().map((s) => s.name)).toContain('pg.query:INSERT app');
  });

  it('names a prepared statement by its name', async () => {
    await inRequest(() => client.query({ name: 'token-by-hash', text: 'SELECT 1' }));
    const statement = spanNamed('pg.query:token-by-hash app');
    expect(statement?.attributes['db.postgresql.plan']).toBe('token-by-hash');
  });

  it('marks a failed statement with its SQLSTATE, never its message, and passes the error on', async () => {
    const failure = Object.assign(new Error('duplicate key value: (email)=(a@b.example)'), {
      code: '23505',
    });
    client.failWith = failure;
    await expect(inRequest(() => client.query('INSERT INTO t VALUES (1)'))).rejects.toBe(failure);
    const callbackError = await new Promise<unknown>((resolve) =>
      inRequest(() => client.query('INSERT INTO t VALUES (2)', (err: unknown) => resolve(err))),
    );
    expect(callbackError).toBe(failure);
    const failed = exporter.getFinishedSpans().filter((s) => s.name.startsWith('pg.query'));
    expect(failed).toHaveLength(2);
    for (const span of failed) {
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      expect(span.status.message).toBeUndefined();
      expect(span.attributes['error.type']).toBe('23505');
      expect(span.events).toEqual([]);
    }
  });

  it('is undone by the function it returns', async () => {
    untrace();
    await inRequest(() => client.query('SELECT 1'));
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['POST /mcp']);
    untrace = traceStatements(FakeClient, tracer);
  });
});

describe('operationOf / sqlErrorType', () => {
  it('takes the first word, upper-cased, without a trailing semicolon', () => {
    expect(operationOf('\n  insert into "rate_limits" values ($1)')).toBe('INSERT');
    expect(operationOf('COMMIT;')).toBe('COMMIT');
    expect(operationOf('LISTEN principal_changed')).toBe('LISTEN');
  });
  it('is the SQLSTATE when there is one, else the class', () => {
    expect(sqlErrorType(Object.assign(new Error('x'), { code: '57014' }))).toBe('57014');
    expect(sqlErrorType(new TypeError('x'))).toBe('TypeError');
    expect(sqlErrorType('x')).toBe('unknown');
  });
});
