import type { EntityManager } from 'typeorm';
import { Injectable } from '@nestjs/common';
import { ClsService, type ClsStore } from 'nestjs-cls';
import { DomainError } from '@app/errors';
import type { CallerContext, Principal } from './principal.js';

interface RequestStore extends ClsStore {
  caller?: CallerContext;
}

const sessionRequests = new WeakSet<object>();

/**
 * Per-request data (caller, channel, request id) in AsyncLocalStorage, typed. Set once by the
 * authentication guard; read by services that stamp the audit trail.
 */
@Injectable()
export class RequestContext {
  constructor(private readonly cls: ClsService<RequestStore>) {}

  setCaller(caller: CallerContext): void {
    this.cls.set('caller', caller);
  }

  /**
   * Sets the caller of a request authenticated by a browser session (the admin console's) and
   * remembers that request, so the bearer guard lets it through. Keyed on the request object, not
   * on the async context: an in-process dispatch runs inside its outer request's context.
   */
  setSessionCaller(request: object, caller: CallerContext): void {
    this.setCaller(caller);
    sessionRequests.add(request);
  }

  authenticatedBySession(request: object): boolean {
    return sessionRequests.has(request);
  }

  /** The authenticated caller; a programming error if read on a public route. */
  get caller(): CallerContext {
    const caller = this.cls.isActive() ? this.cls.get('caller') : undefined;
    if (caller === undefined) throw new DomainError('UNAUTHENTICATED', 'No authenticated caller');
    return caller;
  }

  /**
   * The caller's `withWrite` rows, handed out once: the first audit event of a write commits them
   * in its transaction; none on a public route or a call without any.
   */
  takeWithWrite(): ((tx: EntityManager) => Promise<void>) | undefined {
    const caller = this.cls.isActive() ? this.cls.get('caller') : undefined;
    const rows = caller?.withWrite;
    if (caller !== undefined) caller.withWrite = undefined;
    return rows;
  }

  get principal(): Principal {
    return this.caller.principal;
  }

  /** The caller's organisation: every record a request reads or writes is of this one. */
  get organizationId(): string {
    return this.principal.organizationId;
  }

  get requestId(): string {
    return this.cls.isActive() ? (this.cls.getId() ?? '') : '';
  }
}
