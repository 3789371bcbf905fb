import {
  context,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';

/** What of a `pg` client a statement's span records: where it runs, never who connects. */
interface PgClient {
  connectionParameters?: { database?: string; host?: string; port?: number };
}

/**
 * One CLIENT span per SQL statement a `pg` client sends while a span is active (none outside a
 * trace, as `requireParentSpan` did): named `pg.query:<OPERATION> <database>` (or the prepared
 * statement's name), with `db.system.name`, `db.namespace`, `server.address`, `server.port` and
 * `db.query.text` — the statement text, never its parameters. A failed statement sets the span's
 * status and `error.type` (its SQLSTATE, else the error's class), never the error's message: it can
 * quote a value.
 *
 * The same spans `@opentelemetry/instrumentation-pg` made, with less around each: that package
 * also copied the query config, parsed the operation twice, recorded a duration histogram and
 * counted pool connections on every checkout and release (both into a no-op meter here: the SDK
 * runs no metrics pipeline), and wrapped each statement's promise in two more. Patches
 * `Client.prototype.query` of the `pg` module every consumer shares (TypeORM, the rate-limit
 * store, `libs/database`); returns the undo.
 */
export function traceStatements(client: { prototype: object }, tracer: Tracer): () => void {
  const found: unknown = Reflect.get(client.prototype, 'query');
  if (typeof found !== 'function') throw new Error('not a pg Client: it has no query()');
  const original = found;
  function query(this: PgClient, ...args: unknown[]): unknown {
    const parent = context.active();
    const config = args[0];
    const text = statementText(config);
    if (text === undefined || trace.getSpan(parent) === undefined)
      return Reflect.apply(original, this, args);
    const span = tracer.startSpan(
      spanName(this, config, text),
      { kind: SpanKind.CLIENT, attributes: statementAttributes(this, config, text) },
      parent,
    );
    const last = args.length - 1;
    const callback = args[last];
    // The callback runs in the caller's context (pg calls it from its socket's events), as the
    // instrumentation's `context.bind` did, without a bound wrapper per statement.
    if (typeof callback === 'function') {
      args[last] = endingCallback(span, parent, callback);
    } else if (isRecord(config) && typeof config.callback === 'function') {
      args[0] = { ...config, callback: endingCallback(span, parent, config.callback) };
    }
    let result: unknown;
    try {
      result = Reflect.apply(original, this, args);
    } catch (error) {
      endStatement(span, error);
      throw error;
    }
    if (!isThenable(result)) return result;
    return result.then(
      (value: unknown) => {
        span.end();
        return value;
      },
      (error: unknown) => {
        endStatement(span, error);
        throw error;
      },
    );
  }
  Reflect.set(client.prototype, 'query', query);
  return () => {
    Reflect.set(client.prototype, 'query', original);
  };
}

function endingCallback(span: Span, parent: Context, callback: Function) {
  return function statementDone(this: unknown, err: unknown, result?: unknown): unknown {
    endStatement(span, err);
    return context.with(parent, () => Reflect.apply(callback, this, [err, result]) as unknown);
  };
}

function endStatement(span: Span, error: unknown): void {
  if (error !== undefined && error !== null) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.setAttribute('error.type', sqlErrorType(error));
  }
  span.end();
}

/** A failed statement's `error.type`: its SQLSTATE (`23505`), else the error's class name. */
export function sqlErrorType(error: unknown): string {
  if (isRecord(error) && typeof error.code === 'string' && error.code !== '') return error.code;
  return error instanceof Error ? error.constructor.name : 'unknown';
}

/**
 * The statement's text: a string, or a config's `text`. None for a submittable (a cursor or a
 * stream, which this server does not use: its rows arrive by events, not by the callback).
 */
function statementText(config: unknown): string | undefined {
  if (typeof config === 'string') return config;
  if (!isRecord(config) || typeof config.submit === 'function') return undefined;
  return typeof config.text === 'string' ? config.text : undefined;
}

/** `pg.query:SELECT mydb`: the prepared statement's name if it has one, else the first word. */
export function spanName(client: PgClient, config: unknown, text: string): string {
  const named = isRecord(config) && typeof config.name === 'string' ? config.name : '';
  const database = client.connectionParameters?.database;
  return `pg.query:${named === '' ? operationOf(text) : named}${database ? ` ${database}` : ''}`;
}

/** The statement's first word, upper-cased, without a trailing `;` (`COMMIT;` → `COMMIT`). */
export function operationOf(text: string): string {
  const trimmed = text.trim();
  const space = trimmed.indexOf(' ');
  const word = (space === -1 ? trimmed : trimmed.slice(0, space)).toUpperCase();
  return word.endsWith(';') ? word.slice(0, -1) : word;
}

function statementAttributes(client: PgClient, config: unknown, text: string): Attributes {
  const params = client.connectionParameters;
  const attributes: Attributes = {
    'db.system.name': 'postgresql',
    'db.namespace': params?.database,
    'server.address': params?.host,
    'server.port': Number.isInteger(params?.port) ? params?.port : undefined,
    'db.query.text': text,
  };
  if (isRecord(config) && typeof config.name === 'string')
    attributes['db.postgresql.plan'] = config.name;
  return attributes;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return isRecord(value) && typeof value.then === 'function';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
