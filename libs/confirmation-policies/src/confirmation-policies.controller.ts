import { Body, Controller, Param, UsePipes } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ApiValidationPipe, Endpoint, type Plain } from '@app/rest-contract';
import { CONFIRMATION_POLICY_ENDPOINTS } from './confirmation-policies.endpoints.js';
import { ConfirmationPolicies } from './confirmation-policies.service.js';
import {
  ConfirmationPolicyDto,
  ConfirmationPolicyListDto,
  PolicyToolParamsDto,
  UpdateConfirmationPolicyDto,
} from './confirmation-policy.dto.js';

/** Confirmation policies: `org:admin` scope and `admin` permission. */
@ApiTags('mcp')
@ApiBearerAuth()
@UsePipes(ApiValidationPipe)
@Controller()
export class ConfirmationPoliciesController {
  constructor(private readonly policies: ConfirmationPolicies) {}

  @Endpoint(CONFIRMATION_POLICY_ENDPOINTS.listConfirmationPolicies)
  list(): Promise<Plain<ConfirmationPolicyListDto>> {
    return this.policies.list();
  }

  @Endpoint(CONFIRMATION_POLICY_ENDPOINTS.updateConfirmationPolicy)
  update(
    @Param() params: PolicyToolParamsDto,
    @Body() body: UpdateConfirmationPolicyDto,
  ): Promise<Plain<ConfirmationPolicyDto>> {
    return this.policies.update(params.tool, body);
  }
}
