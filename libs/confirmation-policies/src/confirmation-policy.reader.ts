import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { ConfirmationPolicyCache } from './confirmation-policy.cache.js';
import { defaultModeOf, type ConfirmationPolicy } from './confirmation-policy.js';
import { PolicyTools } from './policy-tools.js';

/**
 * What the tool executor asks before a tool runs: the policy in force for this organisation and
 * tool, on every call, from the replica's cache (current within a second of any change).
 */
@Injectable()
export class ConfirmationPolicyReader {
  constructor(
    private readonly cache: ConfirmationPolicyCache,
    private readonly config: AppConfig,
    private readonly tools: PolicyTools,
  ) {}

  /** The policy a call of `tool` runs under now (the default when never set; a database failure propagates). */
  async policyFor(organizationId: string, tool: string): Promise<ConfirmationPolicy> {
    const set = await this.cache.setOf(organizationId);
    return set.get(tool) ?? this.defaultFor(tool);
  }

  /**
   * A tool nobody has set: `form` for a destructive tool (and any tool not declared: the safe
   * side), `none` for a write tool; the server's confirmation TTL; version 0.
   */
  defaultFor(tool: string): ConfirmationPolicy {
    return {
      tool,
      mode: defaultModeOf(this.tools.get(tool)?.kind ?? 'destructive'),
      expirySeconds: this.config.confirmationTtlSeconds,
      version: 0,
      id: null,
      updatedAt: null,
      updatedBy: null,
    };
  }
}
