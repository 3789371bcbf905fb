import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { MembershipStatus, Permission, Role, Scope, TokenKind } from './access-vocabulary.js';

@Entity({ name: 'organizations' })
export class OrganizationEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'text' })
  slug: string;

  @Column({ type: 'text' })
  name: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

@Entity({ name: 'users' })
export class UserEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'text' })
  email: string;

  @Column({ type: 'text' })
  name: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

@Entity({ name: 'memberships' })
export class MembershipEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId: string;

  @Column({ type: 'text' })
  role: Role;

  @Column({ type: 'text' })
  status: MembershipStatus;

  @Column({ type: 'text', array: true })
  permissions: Permission[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

@Entity({ name: 'api_tokens' })
export class ApiTokenEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId: string;

  @Column({ type: 'text' })
  kind: TokenKind;

  @Column({ type: 'text' })
  name: string;

  @Column({ name: 'client_name', type: 'text', nullable: true })
  clientName: string | null;

  @Column({ name: 'token_prefix', type: 'text' })
  tokenPrefix: string;

  @Column({ name: 'secret_hash', type: 'text', select: false })
  secretHash: string;

  @Column({ type: 'text', array: true })
  scopes: Scope[];

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;

  /** OAuth tokens: the grant this row is the access token of (one row per grant). */
  @Column({ name: 'oauth_grant_id', type: 'text', nullable: true })
  oauthGrantId: string | null;

  @Column({ name: 'oauth_client_id', type: 'text', nullable: true })
  oauthClientId: string | null;

  /** OAuth tokens: the resource (RFC 8707) they are accepted by, e.g. the MCP URL. */
  @Column({ type: 'text', nullable: true })
  audience: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

export const IDENTITY_ENTITIES = [OrganizationEntity, UserEntity, MembershipEntity, ApiTokenEntity];
