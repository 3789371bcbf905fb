import { getMetadataStorage } from 'class-validator';
import { targetConstructorToSchema } from 'class-validator-jsonschema';
import { describe, expect, it } from 'vitest';
import { validateInput } from '@app/rest-contract';
import {
  CreatePortalUserDto,
  ListPortalUsersQueryDto,
  PortalUserDto,
  PortalUserPageDto,
  UpdatePortalUserDto,
} from './portal-user.dto.js';

const options = {
  classValidatorMetadataStorage: getMetadataStorage(),
  refPointerPrefix: '#/$defs/',
};

/** The MCP layer generates tool schemas from these classes; these are the shapes it will see. */
describe('portal-user DTOs as JSON Schema', () => {
  it('create: snake_case fields, email and name required, formats from the validators', () => {
    const s = targetConstructorToSchema(CreatePortalUserDto, options);
    expect(Object.keys(s.properties ?? {}).sort()).toEqual([
      'account_id',
      'email',
      'external_id',
      'name',
      'send_invitation',
    ]);
    expect([...(s.required ?? [])].sort()).toEqual(['email', 'name']);
    expect(s.properties?.email).toMatchObject({ type: 'string', format: 'email' });
    // Nullable (null detaches the account): a uuid or null.
    expect(s.properties?.account_id).toMatchObject({
      anyOf: [{ type: 'string', format: 'uuid' }, { type: 'null' }],
    });
    expect(s.properties?.send_invitation).toMatchObject({ type: 'boolean' });
  });

  it('update: nothing required; list: inherits limit and cursor', () => {
    expect(targetConstructorToSchema(UpdatePortalUserDto, options).required ?? []).toEqual([]);
    const list = targetConstructorToSchema(ListPortalUsersQueryDto, options);
    expect(Object.keys(list.properties ?? {}).sort()).toEqual([
      'account_id',
      'cursor',
      'limit',
      'q',
      'status',
    ]);
    expect(list.properties?.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(list.properties?.status).toMatchObject({ enum: ['invited', 'active', 'inactive'] });
  });

  it('responses: every field required, nullable ones allow null, pages reference the item schema', () => {
    const s = targetConstructorToSchema(PortalUserDto, options);
    expect([...(s.required ?? [])].sort()).toEqual(Object.keys(s.properties ?? {}).sort());
    expect(s.properties?.external_id).toEqual({ anyOf: [{ type: 'string' }, { type: 'null' }] });
    expect(s.properties?.status).toMatchObject({
      type: 'string',
      enum: ['invited', 'active', 'inactive'],
    });
    const page = targetConstructorToSchema(PortalUserPageDto, options);
    expect(page.properties?.data).toMatchObject({
      type: 'array',
      items: { $ref: '#/$defs/PortalUserDto' },
    });
  });

  it('the same class validates REST input: a schema-valid body passes, a bad one names the field', () => {
    expect(
      validateInput(CreatePortalUserDto, { email: 'ana@example.com', name: 'Ana' }, 'body'),
    ).toBeInstanceOf(CreatePortalUserDto);
    expect(() =>
      validateInput(CreatePortalUserDto, { email: 'ana@example.com', name: 'A\u0007na' }, 'body'),
    ).toThrow(
      expect.objectContaining({
        details: [{ field: 'name', message: 'must not contain control characters' }],
      }),
    );
  });
});
