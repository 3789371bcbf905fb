import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DataSource } from 'typeorm';
import { AuditTrail } from '@app/audit-trail';
import { ConfirmationPolicyReader } from '@app/confirmation-policies';
import { RequestContext } from '@app/identity';
import {
  confirmationLabel,
  VERIFIED_CONFIRMATION_PATH,
  VerifiedConfirmationService,
  type McpConfirmation,
  type PageConfirmation,
} from '@app/mcp-confirmations';
import { MetricsService } from '@app/metrics';
import {
  PersonSessionService,
  messagePage,
  type PageOutcome,
  type SignedInPerson,
} from '@app/oauth-server';
import {
  closedView,
  confirmView,
  decidedView,
  otherPersonView,
  type ClosedReason,
} from './confirmation-page.views.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The page where the person who authorized a client confirms a `verified` tool call (ADR 0012).
 * The URL names the question by its id and nothing else: signing in is the authentication, and
 * only the question's own person (the token's person) is offered a decision; anyone else signed
 * in is refused (the phishing rule: a link passed on is useless to whoever opens it). A decision
 * is one conditional UPDATE of the ledger, in one transaction with its audit event, and only
 * under the tool's policy version the question was asked under.
 */
@Injectable()
export class ConfirmationPage {
  private readonly logger = new Logger(ConfirmationPage.name);

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly confirmations: VerifiedConfirmationService,
    private readonly policies: ConfirmationPolicyReader,
    private readonly sessions: PersonSessionService,
    private readonly audit: AuditTrail,
    private readonly metrics: MetricsService,
    private readonly context: RequestContext,
  ) {}

  async show(request: FastifyRequest, reply: FastifyReply, id: string): Promise<PageOutcome> {
    const path = `${VERIFIED_CONFIRMATION_PATH}/${id}`;
    if (!UUID.test(id)) return page(closedView('missing'));
    const person = await this.sessions.currentPerson(request);
    // Nothing about the question, not even whether it exists, before the person signed in.
    if (person === null) return { kind: 'redirect', url: this.sessions.signInUrl(path) };
    const csrf = this.sessions.csrfToken(request, reply);
    const found = await this.confirmations.forPage(id);
    if (found === null) return page(closedView('missing'));
    if (found.userId !== person.userId) return this.otherPerson(found, person, csrf, path);
    const closed = await this.closedReason(found);
    if (closed !== undefined) return page(closedView(closed));
    return {
      kind: 'page',
      status: 200,
      html: confirmView({ csrf, confirmation: found, personEmail: person.email }),
    };
  }

  async decide(
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    form: { csrf?: string; decision?: string },
  ): Promise<PageOutcome> {
    const path = `${VERIFIED_CONFIRMATION_PATH}/${id}`;
    if (!this.sessions.csrfValid(request, form.csrf)) {
      return page({
        status: 403,
        html: messagePage('This form expired', 'Open the page again and answer there.', {
          href: path,
          label: 'Open it again',
        }),
      });
    }
    if (!UUID.test(id)) return page(closedView('missing'));
    const person = await this.sessions.currentPerson(request);
    if (person === null) return { kind: 'redirect', url: this.sessions.signInUrl(path) };
    const decision = form.decision;
    if (decision !== 'confirm' && decision !== 'decline') {
      return page({
        status: 422,
        html: messagePage('Choose Confirm or Decline', 'Open the page again and press one.', {
          href: path,
          label: 'Open it again',
        }),
      });
    }
    const found = await this.confirmations.forPage(id);
    if (found === null) return page(closedView('missing'));
    if (found.userId !== person.userId)
      return this.otherPerson(found, person, this.sessions.csrfToken(request, reply), path);
    const policy = await this.policies.policyFor(found.organizationId, found.tool);
    if (policy.mode !== 'verified' || policy.version !== found.policyVersion)
      return page(closedView('policy_changed'));
    const decided = await this.ds.transaction(async (tx) => {
      // The version in force now: a row asked under another one is not changed.
      const row = await this.confirmations.decideOnPage(
        id,
        person.userId,
        policy.version,
        decision,
        tx,
      );
      if (row === undefined) return undefined;
      await this.audit.record(
        tx,
        {
          action: decision === 'confirm' ? 'confirmation.confirmed' : 'confirmation.declined',
          resourceType: 'confirmation',
          resourceId: row.id,
          resourceLabel: confirmationLabel(row),
          changes: {
            status: {
              before: 'pending',
              after: decision === 'confirm' ? 'confirmed' : 'declined',
            },
            tool: { before: null, after: row.tool },
            target: { before: null, after: `${row.targetType} ${row.targetId}` },
            policy_version: { before: null, after: row.policyVersion },
          },
        },
        this.pageActor(row, person),
      );
      return row;
    });
    if (decided === undefined) {
      // Someone (another tab, the client's decline, the clock) got there first: say what.
      const now = await this.confirmations.forPage(id);
      return page(
        closedView(now === null ? 'missing' : ((await this.closedReason(now)) ?? 'used')),
      );
    }
    this.metrics.recordConfirmation(decision === 'confirm' ? 'verified' : 'declined');
    return { kind: 'page', status: 200, html: decidedView(decision, decided.clientName) };
  }

  /** Signed in as someone else: a refusal, audited in the question's organisation and counted. */
  private async otherPerson(
    found: PageConfirmation,
    person: SignedInPerson,
    csrf: string,
    path: string,
  ): Promise<PageOutcome> {
    this.metrics.recordConfirmation('refused_other_person');
    try {
      await this.ds.transaction((tx) =>
        this.audit.record(
          tx,
          {
            action: 'confirmation.refused',
            resourceType: 'confirmation',
            resourceId: found.id,
            resourceLabel: confirmationLabel(found),
            changes: { reason: { before: null, after: 'signed in as another person' } },
          },
          this.pageActor(found, person),
        ),
      );
    } catch (err) {
      // The refusal stands whether or not it could be written down.
      this.logger.warn({ err }, 'could not audit a refused confirmation page');
    }
    return {
      kind: 'page',
      status: 403,
      html: otherPersonView({ csrf, path, personEmail: person.email }),
    };
  }

  /** Why the page can no longer decide this question, or undefined when it can. */
  private async closedReason(c: PageConfirmation): Promise<ClosedReason | undefined> {
    if (c.status === 'expired' || (c.status === 'pending' && c.lapsed)) return 'expired';
    if (c.status !== 'pending') return 'used';
    if (c.verifiedAt !== null) return 'answered';
    const policy = await this.policies.policyFor(c.organizationId, c.tool);
    if (policy.mode !== 'verified' || policy.version !== c.policyVersion) return 'policy_changed';
    return undefined;
  }

  /** The person on the page (channel `web`), the question's id on the event. */
  private pageActor(c: McpConfirmation, person: SignedInPerson) {
    return {
      ...this.audit.signInPageActor(
        c.organizationId,
        'person',
        { userId: person.userId, name: person.name, email: person.email },
        this.context.requestId || null,
      ),
      confirmationId: c.id,
      clientName: c.clientName,
    };
  }
}

function page(view: { status: number; html: string }): PageOutcome {
  return { kind: 'page', ...view };
}
