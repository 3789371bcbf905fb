import { Client, type Notification } from 'pg';
import type { DataSource } from 'typeorm';
import { DeadlinePool } from './database-deadline.js';
import { EmbeddedPostgres } from './embedded-postgres.js';

export interface ChangeFeedHandlers {
  /** One NOTIFY on the channel, with its payload. */
  notification(payload: string): void;
  /**
   * `true` once every notification from now on will be delivered; `false` as soon as some may be
   * missed (the listening connection broke). Called on each transition, `true` first when listening
   * starts.
   */
  listening(up: boolean): void;
}

export interface ChangeFeed {
  close(): Promise<void>;
}

/** How often a quiet listening connection is asked whether it is still there. */
const HEARTBEAT_MS = 5_000;
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 5_000;

/**
 * Postgres `LISTEN channel` for as long as the feed is open, on the database of `ds`. On an external
 * Postgres: one connection of its own per `ds` (not the pool's), shared by every channel listened
 * on through that `ds`, reconnected with backoff when it breaks, checked by a heartbeat so a
 * silently dead connection is noticed too; and every connection of `ds`'s pool listens as well,
 * from its next use on (see {@link tapOwnCommits}). On the embedded engine of this process: the
 * notifications straight from the engine (it has one session for all connections, and hands them
 * over before the writer's statement returns).
 */
export async function listenForChanges(
  ds: DataSource,
  channel: string,
  handlers: ChangeFeedHandlers,
): Promise<ChangeFeed | undefined> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`Invalid channel name: ${channel}`);
  const url = 'url' in ds.options ? ds.options.url : undefined;
  if (url === undefined) return undefined;
  const embedded = EmbeddedPostgres.at(url);
  if (embedded !== undefined) {
    const stop = await embedded.listen(channel, (payload) => handlers.notification(payload));
    handlers.listening(true);
    return { close: async () => stop() };
  }
  const untap = tapOwnCommits(ds, channel, handlers);
  let listener = listeners.get(ds);
  if (listener === undefined || listener.isClosed) {
    listener = new PgChannelListener(url);
    listeners.set(ds, listener);
  }
  // The first connection attempt is awaited, so a server starts listening; later ones run in the
  // background.
  const subscription = await listener.subscribe(channel, handlers);
  return {
    close: async () => {
      untap();
      await subscription.close();
    },
  };
}

/** The listening connection of each data source (one per replica, whatever the channels). */
const listeners = new WeakMap<DataSource, PgChannelListener>();

/**
 * Makes each connection of `ds`'s pool `LISTEN` on `channel` before it is first handed out (the
 * pool runs the LISTEN, then gives the connection to the caller: see
 * {@link DeadlinePool.onFirstCheckout}). Postgres hands a listening session the notifications of
 * its own transaction right after the commit and before the COMMIT, or the autocommitted
 * statement, returns. So a change this process makes (a revocation, a role change, any
 * trigger-notified write) reaches `notification` before its writer can answer, not only when the
 * feed's own connection hears it some milliseconds later; PRODUCT §5 wants it "at once" on the
 * replica that made it. Notifications of other processes arrive here too: handlers must be
 * idempotent. A LISTEN that fails (a broken connection, the request's deadline spent) fails that
 * checkout and the connection is destroyed, as the caller's own statement would have failed on it.
 * A pool that is not a {@link DeadlinePool} (the app's always is) is not tapped. Returns the
 * function that stops tapping new connections.
 */
function tapOwnCommits(ds: DataSource, channel: string, handlers: ChangeFeedHandlers): () => void {
  // The Postgres driver keeps its `pg` pool as `master`.
  const pool = 'master' in ds.driver ? ds.driver.master : undefined;
  if (!(pool instanceof DeadlinePool)) return () => undefined;
  const onNotification = (n: Notification): void => {
    if (n.channel === channel) handlers.notification(n.payload ?? '');
  };
  return pool.onFirstCheckout(async (client) => {
    client.on('notification', onNotification);
    await client.query(`LISTEN ${channel}`);
  });
}

interface Subscription {
  readonly channel: string;
  readonly handlers: ChangeFeedHandlers;
  up: boolean;
}

/**
 * One listening connection for any number of channels. Each subscriber hears `listening(true)`
 * once its own channel is listened on, and `listening(false)` whenever the connection breaks.
 */
class PgChannelListener {
  private readonly subscriptions = new Set<Subscription>();
  private client: Client | undefined;
  /** The `LISTEN` of each channel on the current connection, once asked for. */
  private listens = new Map<string, Promise<void>>();
  private up = false;
  private closed = false;
  private attempt = 0;
  private connecting: Promise<void> | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(private readonly url: string) {}

  get isClosed(): boolean {
    return this.closed;
  }

  async subscribe(channel: string, handlers: ChangeFeedHandlers): Promise<ChangeFeed> {
    const subscription: Subscription = { channel, handlers, up: false };
    this.subscriptions.add(subscription);
    const client = this.client;
    if (this.up && client !== undefined) {
      try {
        await this.listen(client, channel);
        if (this.client === client && this.up) this.setUp(subscription, true);
      } catch {
        this.lost(client);
      }
    } else if (this.connecting !== undefined) {
      await this.connecting;
    } else if (this.reconnectTimer === undefined) {
      this.connecting = this.connect();
      await this.connecting;
    }
    return { close: () => this.unsubscribe(subscription) };
  }

  private async unsubscribe(subscription: Subscription): Promise<void> {
    this.subscriptions.delete(subscription);
    if (this.subscriptions.size > 0) return;
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.heartbeat);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private listen(client: Client, channel: string): Promise<void> {
    let listening = this.listens.get(channel);
    if (listening === undefined) {
      listening = client.query(`LISTEN ${channel}`).then(() => undefined);
      this.listens.set(channel, listening);
    }
    return listening;
  }

  private async connect(): Promise<void> {
    try {
      await this.attemptConnection();
    } finally {
      this.connecting = undefined;
    }
  }

  private async attemptConnection(): Promise<void> {
    this.reconnectTimer = undefined;
    if (this.closed) return;
    const client = new Client({
      connectionString: this.url,
      application_name: 'platform-mcp-listen',
      connectionTimeoutMillis: 3_000,
      query_timeout: 3_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 5_000,
    });
    this.client = client;
    this.listens = new Map();
    client.on('notification', (n) => {
      for (const s of this.subscriptions) {
        if (s.channel === n.channel) s.handlers.notification(n.payload ?? '');
      }
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      // Subscribers that arrive while these run are listened on too before anyone is told.
      let pending = this.unlistened();
      while (pending.length > 0) {
        await Promise.all(pending.map((channel) => this.listen(client, channel)));
        pending = this.unlistened();
      }
    } catch {
      this.lost(client);
      return;
    }
    if (this.client !== client || this.closed) return;
    this.attempt = 0;
    this.up = true;
    for (const s of this.subscriptions) this.setUp(s, true);
    clearInterval(this.heartbeat);
    this.heartbeat = setInterval(() => {
      client.query('SELECT 1').catch(() => this.lost(client));
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  private unlistened(): string[] {
    const channels = new Set([...this.subscriptions].map((s) => s.channel));
    return [...channels].filter((channel) => !this.listens.has(channel));
  }

  private lost(client: Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.up = false;
    clearInterval(this.heartbeat);
    client.end().catch(() => undefined);
    for (const s of this.subscriptions) this.setUp(s, false);
    if (this.closed) return;
    const delay = Math.min(RECONNECT_MIN_MS * 2 ** this.attempt, RECONNECT_MAX_MS);
    this.attempt++;
    this.reconnectTimer = setTimeout(() => {
      this.connecting = this.connect();
    }, delay);
    this.reconnectTimer.unref();
  }

  private setUp(subscription: Subscription, up: boolean): void {
    if (subscription.up === up) return;
    subscription.up = up;
    subscription.handlers.listening(up);
  }
}
