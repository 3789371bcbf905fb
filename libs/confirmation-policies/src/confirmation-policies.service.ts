import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AuditTrail, auditedFields } from '@app/audit-trail';
import { DomainError } from '@app/errors';
import { RequestContext } from '@app/identity';
import type { Plain } from '@app/rest-contract';
import { ConfirmationPoliciesRepository } from './confirmation-policies.repository.js';
import { ConfirmationPolicyReader } from './confirmation-policy.reader.js';
import type { ConfirmationPolicy, PolicyTool } from './confirmation-policy.js';
import type {
  ConfirmationPolicyDto,
  ConfirmationPolicyListDto,
  UpdateConfirmationPolicyDto,
} from './confirmation-policy.dto.js';
import { PolicyTools } from './policy-tools.js';

/** The admin's list and change of confirmation policies (audited, versioned). */
@Injectable()
export class ConfirmationPolicies {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly repository: ConfirmationPoliciesRepository,
    private readonly reader: ConfirmationPolicyReader,
    private readonly tools: PolicyTools,
    private readonly audit: AuditTrail,
    private readonly context: RequestContext,
  ) {}

  async list(): Promise<Plain<ConfirmationPolicyListDto>> {
    const set = new Map(
      (await this.repository.listSet(this.context.organizationId)).map((p) => [p.tool, p]),
    );
    return {
      data: this.tools
        .all()
        .map((t) => toDto(set.get(t.name) ?? this.reader.defaultFor(t.name), t)),
    };
  }

  update(tool: string, input: UpdateConfirmationPolicyDto): Promise<Plain<ConfirmationPolicyDto>> {
    const known = this.tools.get(tool);
    if (known === undefined) throw DomainError.notFound('Tool with a confirmation policy');
    if (input.mode === 'none' && known.kind === 'destructive') {
      throw DomainError.validation([
        {
          field: 'mode',
          message: `none is not allowed for ${tool}: a destructive tool always runs after a decision (form, verified or approval)`,
        },
      ]);
    }
    const principal = this.context.principal;
    return this.ds.transaction(async (tx) => {
      const before =
        (await this.repository.lock(tx, principal.organizationId, tool)) ??
        this.reader.defaultFor(tool);
      if (input.version !== undefined && input.version !== before.version) {
        throw new DomainError(
          'CONFLICT',
          `The policy of ${tool} changed since you read it (now version ${before.version}); read it again and decide on the current one`,
          [{ field: 'version', message: `is ${before.version} now` }],
        );
      }
      const wanted = {
        mode: input.mode,
        expirySeconds: input.expiry_seconds ?? before.expirySeconds,
      };
      const changes = auditedFields('mode', 'expirySeconds').between(before, wanted);
      if (changes === undefined) return toDto(before, known);
      const after = await this.repository.upsert(tx, principal.organizationId, tool, {
        ...wanted,
        updatedBy: principal.userId,
      });
      await this.audit.record(tx, {
        action: 'confirmation_policy.updated',
        resourceType: 'confirmation_policy',
        resourceId: after.id ?? '',
        resourceLabel: tool,
        changes: {
          ...renamed(changes),
          version: { before: before.version, after: after.version },
        },
      });
      return toDto(after, known);
    });
  }
}

/** The audit trail names fields as the API does. */
function renamed(changes: Record<string, { before: unknown; after: unknown }>) {
  const out: Record<string, { before: unknown; after: unknown }> = {};
  for (const [k, v] of Object.entries(changes))
    out[k === 'expirySeconds' ? 'expiry_seconds' : k] = v;
  return out;
}

function toDto(p: ConfirmationPolicy, tool: PolicyTool): Plain<ConfirmationPolicyDto> {
  return {
    tool: p.tool,
    title: tool.title,
    kind: tool.kind,
    mode: p.mode,
    expiry_seconds: p.expirySeconds,
    version: p.version,
    updated_at: p.updatedAt?.toISOString() ?? null,
    updated_by: p.updatedBy,
  };
}
