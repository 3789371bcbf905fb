import { AsyncLocalStorage } from 'node:async_hooks';
import pg, { Pool } from 'pg';

/**
 * The database time one unit of work may still spend waiting: for a pool connection, for each
 * statement's answer, for locks. Every wait is bounded by what is left and subtracts what it took,
 * so a request that meets a frozen or cut database gives up after its budget in total, however
 * many statements it would have run (a transaction, its rollback, the history row, the token
 * lookup, the rate-limit budget: all of them draw on the same budget).
 */
interface Budget {
  remainingMs: number;
}

const budgets = new AsyncLocalStorage<Budget>();

/**
 * The budget ran out: the database did not answer in time. `isDatabaseUnavailable` recognises it,
 * so the caller answers 503 SERVICE_UNAVAILABLE, never 500.
 */
export class DatabaseDeadlineExceeded extends Error {
  readonly code = 'DATABASE_DEADLINE_EXCEEDED';

  constructor(what: string) {
    super(`Database deadline exceeded ${what}`);
    this.name = 'DatabaseDeadlineExceeded';
  }
}

/** Runs `fn` (and everything it starts) with `budgetMs` of database waiting to spend. */
export function withDatabaseDeadline<T>(budgetMs: number, fn: () => T): T {
  return budgets.run({ remainingMs: budgetMs }, fn);
}

/** The database waiting the current unit of work may still spend; `undefined` outside one. */
export function databaseTimeLeftMs(): number | undefined {
  return budgets.getStore()?.remainingMs;
}

/** Starts a wait: returns the bound for it (ms) and the function that charges it when it ends. */
function startWait(budget: Budget): { boundMs: number; end: () => void } {
  const started = performance.now();
  let ended = false;
  return {
    boundMs: Math.max(1, Math.ceil(budget.remainingMs)),
    end: () => {
      if (ended) return;
      ended = true;
      budget.remainingMs -= performance.now() - started;
    },
  };
}

type PoolCallback = (err: Error | undefined, client?: pg.PoolClient, release?: Release) => void;
type Release = (err?: Error | boolean) => void;
type QueryCallback = (err: Error | null, result?: unknown) => void;
interface CheckoutStep {
  prepare(client: pg.PoolClient): Promise<void>;
  /** The connections it has run on. */
  done: WeakSet<pg.PoolClient>;
}

/** A client that gave up on an answer: its connection may still be busy, so it is never reused. */
const abandoned = new WeakSet<object>();
const wrapped = new WeakSet<object>();

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function isReadTimeout(err: unknown): boolean {
  return err instanceof Error && err.message === 'Query read timeout';
}

/**
 * Bounds each statement by the budget: the client stops waiting when it is spent (pg's
 * `query_timeout`), and a transaction's first round trip also sets the server's
 * `statement_timeout` and `lock_timeout` for the rest of it to what is left, so the server stops
 * working on it too. No extra round trip: the settings travel with `START TRANSACTION`.
 */
function boundQueries(client: pg.PoolClient): void {
  if (wrapped.has(client)) return;
  wrapped.add(client);
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const bounded = (config: unknown, values?: unknown, callback?: unknown): unknown => {
    const budget = budgets.getStore();
    const cb = [values, callback].find((v): v is QueryCallback => typeof v === 'function');
    const vals = typeof values === 'function' ? undefined : values;
    const custom = typeof config === 'object' && config !== null && 'submit' in config;
    if (budget === undefined || custom) return query(config, values, callback);
    const fail = (err: Error): unknown => {
      if (cb !== undefined) {
        process.nextTick(() => cb(err));
        return undefined;
      }
      return Promise.reject(err);
    };
    if (abandoned.has(client))
      return fail(new DatabaseDeadlineExceeded('earlier on this connection'));
    if (budget.remainingMs <= 0) {
      // A transaction's later statements (its rollback too) would wait on a database that did
      // not answer: the connection is dropped instead, which ends the transaction on the server.
      abandoned.add(client);
      return fail(new DatabaseDeadlineExceeded('before the statement was sent'));
    }
    const wait = startWait(budget);
    const base: Record<string, unknown> = isRecord(config) ? { ...config } : { text: config };
    const settings =
      base.text === 'START TRANSACTION' && vals === undefined
        ? `; SET LOCAL statement_timeout = ${wait.boundMs}; SET LOCAL lock_timeout = ${wait.boundMs}`
        : '';
    const sent = {
      ...base,
      text: `${String(base.text)}${settings}`,
      query_timeout: wait.boundMs,
    };
    const settle = (err: unknown): void => {
      wait.end();
      if (isReadTimeout(err)) abandoned.add(client);
    };
    if (cb !== undefined) {
      return query(sent, vals, (err: Error | null, result?: unknown) => {
        settle(err);
        cb(err, result);
      });
    }
    return Promise.resolve(query(sent, vals)).then(
      (result) => {
        settle(undefined);
        return result;
      },
      (err: unknown) => {
        settle(err);
        throw err;
      },
    );
  };
  Object.assign(client, { query: bounded });
}

/**
 * pg's pool, with every checkout and statement made inside a {@link withDatabaseDeadline} bounded
 * by what is left of that budget. Outside one (migrations, start-up, background work that sets
 * none) it behaves as pg's own, bounded only by the pool's settings. A connection that gave up on
 * an answer is destroyed when released, never handed to the next caller still busy.
 */
export class DeadlinePool extends Pool {
  private readonly checkoutSteps = new Set<CheckoutStep>();

  /**
   * Runs `prepare` once on each connection of this pool, when it is first checked out, and hands
   * the connection over only after it has finished: the caller's statements never queue behind it
   * (pg 8 warns about queued statements, pg 9 refuses them). If `prepare` fails, that checkout
   * fails and the connection is destroyed (see {@link runCheckoutSteps}). Inside a deadline its
   * statements draw on that budget like any other. Returns the function that removes the step.
   */
  onFirstCheckout(prepare: (client: pg.PoolClient) => Promise<void>): () => void {
    const step: CheckoutStep = { prepare, done: new WeakSet() };
    this.checkoutSteps.add(step);
    return () => this.checkoutSteps.delete(step);
  }

  /**
   * The steps this connection has not run yet. While they run the connection is checked out and
   * nobody else listens for its `error` event (the pool stops at checkout, the caller starts once
   * it has it), so a connection that breaks meanwhile would be an uncaught exception. A step that
   * fails, or a connection that breaks, fails this checkout like a failed connect: the connection
   * is destroyed (keeping a listener, so a late `error` of the dead connection goes nowhere) and
   * the caller gets the error, which {@link isDatabaseUnavailable} recognises when the database is
   * the cause.
   */
  private async runCheckoutSteps(client: pg.PoolClient, release: Release): Promise<void> {
    let broken: unknown;
    const onError = (err: Error): void => {
      broken ??= err;
    };
    client.on('error', onError);
    for (const step of this.checkoutSteps) {
      if (broken !== undefined) break;
      if (step.done.has(client)) continue;
      step.done.add(client);
      try {
        await step.prepare(client);
      } catch (err) {
        broken ??= err;
      }
    }
    if (broken === undefined) {
      client.off('error', onError);
      return;
    }
    const failure =
      broken instanceof Error ? broken : new Error('A pool connection could not be prepared');
    release(failure);
    throw failure;
  }

  // pg-pool's `connect` is overloaded (callback, or a promise); both forms are kept.
  override connect(): Promise<pg.PoolClient>;
  override connect(callback: PoolCallback): void;
  override connect(callback?: PoolCallback): Promise<pg.PoolClient> | void {
    const budget = budgets.getStore();
    // No AsyncLocalStorage.bind of pg-pool's callback nor of the caller's: pg-pool may call back
    // in another request's context (a connection released there), but that callback only settles
    // `acquired`, and a promise's reactions run in the context they were registered in (here, the
    // caller's), so the caller's callback and everything after run in its own context. A bind per
    // checkout cost an AsyncResource and two deprecation wrappers (Node 20), for nothing.
    const acquired = new Promise<[pg.PoolClient, Release]>((resolve, reject) => {
      const whenAcquired = (err: Error | undefined, client?: pg.PoolClient, release?: Release) => {
        if (err !== undefined || client === undefined || release === undefined)
          reject(err ?? new Error('pg pool gave no client'));
        else resolve([client, release]);
      };
      if (budget === undefined) {
        super.connect(whenAcquired);
        return;
      }
      if (budget.remainingMs <= 0) {
        reject(new DatabaseDeadlineExceeded('before a connection was acquired'));
        return;
      }
      const wait = startWait(budget);
      let late = false;
      const timer = setTimeout(() => {
        late = true;
        wait.end();
        reject(new DatabaseDeadlineExceeded('waiting for a connection'));
      }, wait.boundMs);
      super.connect((err, client, release) => {
        if (late) {
          // Given up on: back to the pool for the next caller.
          if (err === undefined && release !== undefined) release();
          return;
        }
        clearTimeout(timer);
        wait.end();
        whenAcquired(err, client, release);
      });
    }).then(([client, release]) => {
      boundQueries(client);
      const releaseOnce: Release = (err) => {
        release(abandoned.has(client) ? new Error('abandoned after a timeout') : err);
      };
      Object.assign(client, { release: releaseOnce });
      return this.runCheckoutSteps(client, releaseOnce).then(() => [client, releaseOnce] as const);
    });
    if (callback === undefined) return acquired.then(([client]) => client);
    acquired.then(
      ([client, release]) => callback(undefined, client, release),
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
    );
  }
}

/** The `pg` module as TypeORM loads it (`driver` option), with {@link DeadlinePool} as its pool. */
export const deadlineAwarePg: typeof pg = { ...pg, Pool: DeadlinePool };
