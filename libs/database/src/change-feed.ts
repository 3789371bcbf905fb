import { Client } from 'pg';
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
 * Postgres `LISTEN channel` for as long as the feed is open. On an external Postgres: a connection
 * of its own (not the pool's), reconnected with backoff when it breaks, checked by a heartbeat so a
 * silently dead connection is noticed too. On the embedded engine of this process: the
 * notifications straight from the engine (it has one session for all connections).
 */
export async function listenForChanges(
  url: string,
  channel: string,
  handlers: ChangeFeedHandlers,
): Promise<ChangeFeed> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`Invalid channel name: ${channel}`);
  const embedded = EmbeddedPostgres.at(url);
  if (embedded !== undefined) {
    const stop = await embedded.listen(channel, (payload) => handlers.notification(payload));
    handlers.listening(true);
    return { close: async () => stop() };
  }
  const feed = new PgChannelListener(url, channel, handlers);
  // The first attempt is awaited, so a server starts listening; later ones run in the background.
  await feed.start();
  return feed;
}

class PgChannelListener implements ChangeFeed {
  private client: Client | undefined;
  private up = false;
  private closed = false;
  private attempt = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly channel: string,
    private readonly handlers: ChangeFeedHandlers,
  ) {}

  start(): Promise<void> {
    return this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.heartbeat);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
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
    client.on('notification', (n) => {
      if (n.channel === this.channel) this.handlers.notification(n.payload ?? '');
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch {
      this.lost(client);
      return;
    }
    if (this.client !== client || this.closed) return;
    this.attempt = 0;
    this.setUp(true);
    clearInterval(this.heartbeat);
    this.heartbeat = setInterval(() => {
      client.query('SELECT 1').catch(() => this.lost(client));
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  private lost(client: Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    clearInterval(this.heartbeat);
    client.end().catch(() => undefined);
    this.setUp(false);
    if (this.closed) return;
    const delay = Math.min(RECONNECT_MIN_MS * 2 ** this.attempt, RECONNECT_MAX_MS);
    this.attempt++;
    this.reconnectTimer = setTimeout(() => void this.connect(), delay);
    this.reconnectTimer.unref();
  }

  private setUp(up: boolean): void {
    if (this.up === up) return;
    this.up = up;
    this.handlers.listening(up);
  }
}
