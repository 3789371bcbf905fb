import { describe, expect, it } from 'vitest';
import { AUDIT_CHANNELS, AUDIT_RESOURCE_TYPES } from '@app/audit-trail';
import { CHANNEL_LABELS, RESOURCE_TYPES } from '../../apps/admin-console/src/audit-vocabulary.js';

describe("the console's audit filters", () => {
  it('offer every resource type and channel the audit trail records, and no other', () => {
    expect([...RESOURCE_TYPES]).toEqual([...AUDIT_RESOURCE_TYPES]);
    expect(Object.keys(CHANNEL_LABELS).toSorted()).toEqual([...AUDIT_CHANNELS].toSorted());
  });
});
