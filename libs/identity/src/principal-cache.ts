import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import { listenForChanges, type ChangeFeed } from '@app/database';
import type { PrincipalRow } from './tokens.repository.js';

/** The channel the database notifies on (migration PrincipalChangeNotify). */
export const PRINCIPAL_CHANGED_CHANNEL = 'principal_changed';
/** A bound on memory: past this many tokens the oldest entry makes room. */
const MAX_ENTRIES = 10_000;

interface Entry {
  row: PrincipalRow;
  until: number;
}

/**
 * Resolved bearer tokens (token → person, organisation, membership, scopes, permissions), kept in
 * this process for `PRINCIPAL_CACHE_TTL_MS`, so most requests skip the principal query.
 *
 * Revocation stays immediate: the database sends `NOTIFY principal_changed` on every change that
 * alters a principal (triggers, so every writer is covered), and each replica drops the affected
 * entries when it arrives. On the replica that made the change that is before the writer's own
 * statement returns, so before it answers (the pool's connections listen too: see
 * `listenForChanges`); on the others, within the notification's delay.
 * Entries are kept only while the notifications are known to arrive: before the listening
 * connection is up, and from the moment it breaks until it is back, every request asks the
 * database (pass-through), and whatever was cached is dropped (a notification may have been
 * missed). A lookup that overlapped a notification is not cached either.
 */
@Injectable()
export class PrincipalCache implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(PrincipalCache.name);
  private readonly entries = new Map<string, Entry>();
  /** Moves on every notification and every change of `listening`. */
  private generation = 0;
  private listening = false;
  /** Set once the app is closing: the feed goes down on purpose. */
  private stopping = false;
  private feed: ChangeFeed | undefined;
  private readonly ttlMs: number;

  constructor(
    config: AppConfig,
    @InjectDataSource() private readonly ds: DataSource,
  ) {
    this.ttlMs = config.principalCacheTtlMs;
  }

  async onModuleInit(): Promise<void> {
    if (this.ttlMs === 0) return;
    this.feed = await listenForChanges(this.ds, PRINCIPAL_CHANGED_CHANNEL, {
      notification: (payload) => this.changed(payload),
      listening: (up) => this.listeningChanged(up),
    });
  }

  async onModuleDestroy(): Promise<void> {
    // A normal stop: the cache goes off without the warning meant for a lost connection.
    this.stopping = true;
    this.listeningChanged(false);
    await this.feed?.close();
    this.feed = undefined;
  }

  /** Whether entries are kept (the change notifications are arriving). */
  get active(): boolean {
    return this.listening;
  }

  /** The row for a secret hash: from the cache while it is fresh, else from `load`. */
  async resolve(
    secretHash: string,
    load: () => Promise<PrincipalRow | undefined>,
  ): Promise<PrincipalRow | undefined> {
    const now = Date.now();
    const hit = this.entries.get(secretHash);
    if (hit !== undefined) {
      if (hit.until > now) return hit.row;
      this.entries.delete(secretHash);
    }
    const generation = this.generation;
    const row = await load();
    if (row !== undefined && this.listening && generation === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) {
        const oldest = this.entries.keys().next();
        if (oldest.done !== true) this.entries.delete(oldest.value);
      }
      this.entries.set(secretHash, { row, until: now + this.ttlMs });
    }
    return row;
  }

  /** Drops the entries a change notification names (everything, for a payload it cannot read). */
  changed(payload: string): void {
    this.generation++;
    const [kind, a, b] = payload.split(':');
    const affected: (row: PrincipalRow) => boolean =
      kind === 't' && a !== undefined
        ? (row) => row.token_id === a
        : kind === 'm' && a !== undefined && b !== undefined
          ? (row) => row.organization_id === a && row.user_id === b
          : kind === 'u' && a !== undefined
            ? (row) => row.user_id === a
            : kind === 'o' && a !== undefined
              ? (row) => row.organization_id === a
              : () => true;
    for (const [key, entry] of this.entries) if (affected(entry.row)) this.entries.delete(key);
  }

  /** The change feed started (`true`) or stopped (`false`) delivering; either way the entries go. */
  listeningChanged(up: boolean): void {
    this.generation++;
    this.entries.clear();
    if (this.listening === up) return;
    this.listening = up;
    if (up) this.logger.log('Principal cache on: token changes arrive by LISTEN/NOTIFY');
    else if (this.stopping) this.logger.log('Principal cache off: the server is stopping');
    else
      this.logger.warn(
        'Principal cache off: the LISTEN connection is down; every request reads its token from the database until it is back',
      );
  }
}
