import { Module } from '@nestjs/common';
import { IdentityModule } from '@app/identity';
import {
  ActiveMembershipCheck,
  KeyOwnerMembershipCheck,
  PermissionCheck,
  TokenScopeCheck,
} from './access-checks.js';
import { AccessGuard } from './access.guard.js';
import { AccessPolicy } from './access.policy.js';

@Module({
  imports: [IdentityModule],
  providers: [
    KeyOwnerMembershipCheck,
    ActiveMembershipCheck,
    TokenScopeCheck,
    PermissionCheck,
    AccessPolicy,
    AccessGuard,
  ],
  exports: [AccessPolicy, AccessGuard],
})
export class AccessModule {}
