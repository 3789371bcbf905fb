import type { MembershipStatus, Permission, Role, Scope, TokenKind } from '@app/access-vocabulary';

/** An `organizations` row. */
export interface Organization {
  id: string;
  slug: string;
  name: string;
  createdAt: Date;
}

/** A `users` row (a person; e-mails are unique ignoring case). */
export interface User {
  id: string;
  email: string;
  name: string;
  createdAt: Date;
}

/** A `memberships` row: a person in an organisation, with a role and its permissions. */
export interface Membership {
  id: string;
  organizationId: string;
  userId: string;
  role: Role;
  status: MembershipStatus;
  permissions: Permission[];
  createdAt: Date;
  updatedAt: Date;
}

/** An `api_tokens` row without its secret hash (which never leaves the repository). */
export interface ApiToken {
  id: string;
  organizationId: string;
  userId: string;
  kind: TokenKind;
  name: string;
  clientName: string | null;
  tokenPrefix: string;
  scopes: Scope[];
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  /** OAuth tokens: the grant this row is the access token of (one row per grant). */
  oauthGrantId: string | null;
  oauthClientId: string | null;
  /** OAuth tokens: the resource (RFC 8707) they are accepted by, e.g. the MCP URL. */
  audience: string | null;
  createdAt: Date;
}

/** A person and the organisations they belong to, as sign-in and consent see them. */
export interface PersonMembership {
  membershipId: string;
  organizationId: string;
  organizationSlug: string;
  organizationName: string;
  role: Role;
  status: MembershipStatus;
  permissions: Permission[];
}

export interface Person {
  userId: string;
  email: string;
  name: string;
  memberships: PersonMembership[];
}
