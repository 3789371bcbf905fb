import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { listenForChanges, type ChangeFeed } from '@app/database';
import { ConfirmationPoliciesRepository } from './confirmation-policies.repository.js';
import type { ConfirmationPolicy } from './confirmation-policy.js';

/** The channel the database notifies on (migration ConfirmationPolicies), payload: organisation id. */
export const CONFIRMATION_POLICY_CHANGED_CHANNEL = 'confirmation_policy_changed';
/** A bound on memory: past this many organisations the oldest entry makes room. */
const MAX_ORGANIZATIONS = 10_000;
/** Even with the notifications arriving, an organisation's policies are read again this often. */
const REFRESH_MS = 60_000;

type PolicySet = ReadonlyMap<string, ConfirmationPolicy>;

/**
 * Each organisation's set policies, kept in this process so a tool call does not query them. A
 * change reaches every replica within the notification's delay (the table's trigger sends
 * `NOTIFY confirmation_policy_changed` whoever wrote it; on the replica that wrote it, before its
 * statement returns: see `listenForChanges`). While the notifications are not known to arrive
 * (before listening starts, while the connection is down) nothing is kept: every call reads.
 * A read that overlapped a notification is not kept either.
 */
@Injectable()
export class ConfirmationPolicyCache implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ConfirmationPolicyCache.name);
  private readonly sets = new Map<string, { set: PolicySet; until: number }>();
  private generation = 0;
  private listening = false;
  private feed: ChangeFeed | undefined;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly policies: ConfirmationPoliciesRepository,
  ) {}

  async onModuleInit(): Promise<void> {
    this.feed = await listenForChanges(this.ds, CONFIRMATION_POLICY_CHANGED_CHANNEL, {
      notification: (organizationId) => this.changed(organizationId),
      listening: (up) => this.listeningChanged(up),
    });
  }

  async onModuleDestroy(): Promise<void> {
    this.listening = false;
    this.sets.clear();
    await this.feed?.close();
    this.feed = undefined;
  }

  /** Whether sets are kept (the change notifications are arriving). */
  get active(): boolean {
    return this.listening;
  }

  /** The organisation's set policies by tool (a database failure propagates). */
  async setOf(organizationId: string): Promise<PolicySet> {
    const now = Date.now();
    const kept = this.sets.get(organizationId);
    if (kept !== undefined && kept.until > now) return kept.set;
    const generation = this.generation;
    const rows = await this.policies.listSet(organizationId);
    const set: PolicySet = new Map(rows.map((p) => [p.tool, p]));
    if (this.listening && generation === this.generation) {
      this.sets.delete(organizationId);
      if (this.sets.size >= MAX_ORGANIZATIONS) {
        const oldest = this.sets.keys().next();
        if (oldest.done !== true) this.sets.delete(oldest.value);
      }
      this.sets.set(organizationId, { set, until: now + REFRESH_MS });
    }
    return set;
  }

  /** An organisation's policies changed (anything unreadable: every organisation's). */
  changed(organizationId: string): void {
    this.generation++;
    if (/^[0-9a-f-]{36}$/i.test(organizationId)) this.sets.delete(organizationId.toLowerCase());
    else this.sets.clear();
  }

  private listeningChanged(up: boolean): void {
    this.generation++;
    this.sets.clear();
    if (this.listening === up) return;
    this.listening = up;
    if (!up)
      this.logger.warn(
        'Confirmation policies are read on every call until the LISTEN connection is back',
      );
  }
}
