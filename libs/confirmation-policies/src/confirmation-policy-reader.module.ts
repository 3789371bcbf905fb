import { Module } from '@nestjs/common';
import { ConfirmationPoliciesRepository } from './confirmation-policies.repository.js';
import { ConfirmationPolicyCache } from './confirmation-policy.cache.js';
import { ConfirmationPolicyReader } from './confirmation-policy.reader.js';
import { PolicyTools } from './policy-tools.js';

/**
 * The read side alone, for the tool executor: {@link ConfirmationPolicyReader} (the replica's
 * cache behind it) and {@link PolicyTools}, where the executor declares the tools that ask. The
 * admin API is {@link ConfirmationPoliciesModule}, which the app wires and the executor never
 * imports. Needs the global AppConfig and the app's TypeORM connection.
 */
@Module({
  providers: [
    ConfirmationPoliciesRepository,
    ConfirmationPolicyCache,
    ConfirmationPolicyReader,
    PolicyTools,
  ],
  exports: [ConfirmationPoliciesRepository, ConfirmationPolicyReader, PolicyTools],
})
export class ConfirmationPolicyReaderModule {}
