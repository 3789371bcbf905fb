import { Body, Controller, Param, UsePipes } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ApiValidationPipe, Endpoint, type ResponsesOf } from '@app/rest-contract';
import { CONFIRMATION_POLICY_ENDPOINTS } from './confirmation-policies.endpoints.js';
import { ConfirmationPolicies } from './confirmation-policies.service.js';
import { PolicyToolParamsDto, UpdateConfirmationPolicyDto } from './confirmation-policy.dto.js';

/** What each endpoint answers, from its contract (the input DTOs are named for the pipe). */
type Responses = ResponsesOf<typeof CONFIRMATION_POLICY_ENDPOINTS>;

/** Confirmation policies: `org:admin` scope and `admin` permission. */
@ApiTags('mcp')
@ApiBearerAuth()
@UsePipes(ApiValidationPipe)
@Controller()
export class ConfirmationPoliciesController {
  constructor(private readonly policies: ConfirmationPolicies) {}

  @Endpoint(CONFIRMATION_POLICY_ENDPOINTS.listConfirmationPolicies)
  list(): Promise<Responses['listConfirmationPolicies']> {
    return this.policies.list();
  }

  @Endpoint(CONFIRMATION_POLICY_ENDPOINTS.updateConfirmationPolicy)
  update(
    @Param() params: PolicyToolParamsDto,
    @Body() body: UpdateConfirmationPolicyDto,
  ): Promise<Responses['updateConfirmationPolicy']> {
    return this.policies.update(params.tool, body);
  }
}
