import {
  Body,
  Controller,
  Get,
  Param,
  Query,
  UseGuards,
  UsePipes,
  type CanActivate,
} from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test, type TestingModule } from '@nestjs/testing';
import { IsUUID } from 'class-validator';
import { ClsModule, ClsService } from 'nestjs-cls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessPolicy } from '@app/access';
import { ROLE_PERMISSIONS, scoped } from '@app/access-vocabulary';
import { DomainError } from '@app/errors';
import { RequestContext, type CallerContext } from '@app/identity';
import {
  ApiValidationPipe,
  Endpoint,
  Input,
  PageQueryDto,
  type EndpointContract,
} from '@app/rest-contract';
import { testAccessPolicy, testPrincipal } from '@app/testing';
import { RestDispatcher } from './rest-dispatcher.js';

class WidgetIdDto {
  @IsUUID()
  id!: string;
}

class CreateWidgetDto {
  @Input.requiredText({ description: 'Name', maxLength: 20 })
  name!: string;
}

class WidgetDto {}

const READ = scoped('accounts', 'read', 'accounts.read');
const base = { operationId: 'x', summary: 'x', errors: [], response: WidgetDto } as const;
const GET_WIDGET: EndpointContract = {
  ...base,
  method: 'GET',
  path: '/v1/widgets/:id',
  status: 200,
  access: READ,
  params: WidgetIdDto,
};
const LIST_WIDGETS: EndpointContract = {
  ...base,
  method: 'GET',
  path: '/v1/widgets',
  status: 200,
  access: READ,
  query: PageQueryDto,
};
const CREATE_WIDGET: EndpointContract = {
  ...base,
  method: 'POST',
  path: '/v1/widgets',
  status: 201,
  access: scoped('accounts', 'write', 'accounts.manage'),
  body: CreateWidgetDto,
};
const FAILING: EndpointContract = {
  ...base,
  method: 'GET',
  path: '/v1/widgets/failing/:id',
  status: 200,
  access: { kind: 'authenticated', reason: 'test' },
  params: WidgetIdDto,
};
const GUARDED: EndpointContract = {
  ...base,
  method: 'GET',
  path: '/v1/guarded',
  status: 200,
  access: READ,
};

const ID = '6f1c2a8e-0d7b-4c39-9a51-1b2e3c4d5e6f';

@UsePipes(ApiValidationPipe)
@Controller()
class WidgetsController {
  constructor(private readonly context: RequestContext) {}

  @Endpoint(GET_WIDGET)
  get(@Param() params: WidgetIdDto): unknown {
    const { channel, confirmationId } = this.context.caller;
    const { requestId } = this.context;
    return {
      id: params.id,
      channel,
      confirmationId,
      requestId,
      at: new Date(0),
      dropped: undefined,
    };
  }

  @Endpoint(LIST_WIDGETS)
  list(@Query() query: PageQueryDto): unknown {
    return { limit: query.limit, cursor: query.cursor ?? null };
  }

  @Endpoint(CREATE_WIDGET)
  create(@Body() body: CreateWidgetDto): unknown {
    return { name: body.name, created_by: this.context.principal.userEmail };
  }

  @Endpoint(FAILING)
  failing(@Param() params: WidgetIdDto): unknown {
    if (params.id === ID) throw new DomainError('NOT_FOUND', 'Widget not found');
    if (params.id.startsWith('0')) throw new Error('Connection terminated unexpectedly');
    throw new TypeError('a bug');
  }
}

class AllowAll implements CanActivate {
  canActivate(): boolean {
    return true;
  }
}

@Controller()
class GuardedController {
  @Endpoint(GUARDED)
  @UseGuards(AllowAll)
  @Get('unused')
  guarded(): unknown {
    return {};
  }
}

const member = testPrincipal({
  scopes: ['accounts:read'],
  membership: { id: 'm1', status: 'active', role: 'member', permissions: ROLE_PERMISSIONS.member },
});
const caller = (over: Partial<CallerContext> = {}): CallerContext => ({
  principal: member,
  channel: 'mcp',
  clientName: 'client',
  confirmationId: null,
  requestId: 'req-1',
  ...over,
});

describe('RestDispatcher', () => {
  let moduleRef: TestingModule;
  let dispatcher: RestDispatcher;
  let cls: ClsService;
  let context: RequestContext;

  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({
      // oxlint-disable-next-line typescript/no-unsafe-class-instance-assignment -- the module's own options shape
      imports: [DiscoveryModule, ClsModule.forRoot({ global: true })],
      controllers: [WidgetsController, GuardedController],
      providers: [
        RestDispatcher,
        RequestContext,
        { provide: AccessPolicy, useFactory: testAccessPolicy },
      ],
    }).compile();
    await moduleRef.init();
    dispatcher = moduleRef.get(RestDispatcher);
    cls = moduleRef.get(ClsService);
    context = moduleRef.get(RequestContext);
  });

  afterAll(() => moduleRef.close());

  it("runs the endpoint's handler as the caller, in a context of its own, and answers what HTTP would carry", async () => {
    const outer = caller({ channel: 'api', clientName: null });
    await cls.run(async () => {
      context.setCaller(outer);
      const res = await dispatcher.dispatch(caller({ confirmationId: 'c-1' }), GET_WIDGET, {
        params: { id: ID },
      });
      expect(res.status).toBe(200);
      // JSON's own rules: dates as ISO text, undefined fields dropped; `text` is the body's JSON.
      expect(res.body).toEqual({
        id: ID,
        channel: 'mcp',
        confirmationId: 'c-1',
        requestId: 'req-1',
        at: '1970-01-01T00:00:00.000Z',
      });
      expect(res.text).toBe(JSON.stringify(res.body));
      // The MCP request's own caller is untouched.
      expect(context.caller).toBe(outer);
    });
  });

  it('answers the success status of the contract (201 for a create)', async () => {
    const writer = testPrincipal({ scopes: ['accounts:write'] });
    const res = await dispatcher.dispatch(caller({ principal: writer }), CREATE_WIDGET, {
      body: { name: 'Bolt' },
    });
    expect(res).toMatchObject({ status: 201, body: { name: 'Bolt', created_by: 'ana@acme.test' } });
  });

  it("validates with the endpoint's DTOs: a bad path parameter, an unknown body field, a control character", async () => {
    const bad = await dispatcher.dispatch(caller(), GET_WIDGET, { params: { id: 'nope' } });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({
      error: { code: 'VALIDATION_ERROR', details: [{ field: 'id' }] },
    });
    const writer = testPrincipal({ scopes: ['accounts:write'] });
    const unknown = await dispatcher.dispatch(caller({ principal: writer }), CREATE_WIDGET, {
      body: { name: 'Bolt', colour: 'red' },
    });
    expect(unknown.body).toMatchObject({
      error: { code: 'VALIDATION_ERROR', details: [{ field: 'colour' }] },
    });
    const control = await dispatcher.dispatch(caller({ principal: writer }), CREATE_WIDGET, {
      body: { name: 'Bo\u0007lt' },
    });
    expect(control.status).toBe(422);
  });

  it('gives query arguments as a query string carries them (strings, converted by the DTO)', async () => {
    const ok = await dispatcher.dispatch(caller(), LIST_WIDGETS, { query: { limit: 5 } });
    expect(ok).toMatchObject({ status: 200, body: { limit: 5, cursor: null } });
    const single = await dispatcher.dispatch(caller(), LIST_WIDGETS, { query: { limit: [7] } });
    expect(single.body).toMatchObject({ limit: 7 });
    const bad = await dispatcher.dispatch(caller(), LIST_WIDGETS, { query: { limit: 'many' } });
    expect(bad).toMatchObject({ status: 422, body: { error: { details: [{ field: 'limit' }] } } });
  });

  it("evaluates the route's requirement unless that very requirement was verified for the caller", async () => {
    const refused = await dispatcher.dispatch(caller(), CREATE_WIDGET, { body: { name: 'Bolt' } });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: 'insufficient_scope' } });
    // The requirement the executor verified is another one: evaluated in full, still refused.
    const other = await dispatcher.dispatch(caller(), CREATE_WIDGET, {
      body: { name: 'Bolt' },
      verified: { scope: { resource: 'accounts', access: 'read' }, permission: 'accounts.read' },
    });
    expect(other.status).toBe(403);
    // Exactly this route's requirement, verified a moment ago: not evaluated a second time.
    const verified = await dispatcher.dispatch(caller(), CREATE_WIDGET, {
      body: { name: 'Bolt' },
      verified: { scope: { resource: 'accounts', access: 'write' }, permission: 'accounts.manage' },
    });
    expect(verified.status).toBe(201);
  });

  it('maps what the handler throws as the exception filter does', async () => {
    const notFound = await dispatcher.dispatch(caller(), FAILING, { params: { id: ID } });
    expect(notFound).toMatchObject({
      status: 404,
      body: { error: { code: 'NOT_FOUND', message: 'Widget not found' } },
    });
    const unavailable = await dispatcher.dispatch(caller(), FAILING, {
      params: { id: '0f1c2a8e-0d7b-4c39-9a51-1b2e3c4d5e6f' },
    });
    expect(unavailable).toMatchObject({
      status: 503,
      body: { error: { code: 'SERVICE_UNAVAILABLE', details: { retry_after_seconds: 5 } } },
    });
    const bug = await dispatcher.dispatch(caller(), FAILING, {
      params: { id: '9f1c2a8e-0d7b-4c39-9a51-1b2e3c4d5e6f' },
    });
    expect(bug).toMatchObject({
      status: 500,
      body: { error: { code: 'INTERNAL_ERROR', details: { requestId: 'req-1' } } },
    });
    expect(JSON.stringify(bug.body)).not.toContain('a bug');
  });

  it('refuses an endpoint it would not run the way HTTP does, and one nobody serves', () => {
    expect(() => dispatcher.assertDispatchable(GET_WIDGET)).not.toThrow();
    expect(() => dispatcher.assertDispatchable(GUARDED)).toThrow(/route guards/);
    expect(() => dispatcher.assertDispatchable({ ...GET_WIDGET, path: '/v1/nowhere/:id' })).toThrow(
      /no controller method declares it/,
    );
  });
});
