import { Body, Controller, Param, Query, UsePipes } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ApiValidationPipe, Endpoint, type ResponsesOf } from '@app/rest-contract';
import { APPROVAL_ENDPOINTS } from './approvals.endpoints.js';
import { Approvals } from './approvals.service.js';
import {
  ApprovalIdParamsDto,
  ApproveDto,
  DenyDto,
  ListApprovalsQueryDto,
} from './approvals.dto.js';

/** What each endpoint answers, from its contract (the input DTOs are named for the pipe). */
type Responses = ResponsesOf<typeof APPROVAL_ENDPOINTS>;

/** Approval requests: `org:admin` scope and `admin` permission. */
@ApiTags('mcp')
@ApiBearerAuth()
@UsePipes(ApiValidationPipe)
@Controller()
export class ApprovalsController {
  constructor(private readonly approvals: Approvals) {}

  @Endpoint(APPROVAL_ENDPOINTS.listApprovals)
  list(@Query() query: ListApprovalsQueryDto): Promise<Responses['listApprovals']> {
    return this.approvals.list(query);
  }

  @Endpoint(APPROVAL_ENDPOINTS.countPendingApprovals)
  countPending(): Promise<Responses['countPendingApprovals']> {
    return this.approvals.countPending();
  }

  @Endpoint(APPROVAL_ENDPOINTS.approveApproval)
  approve(
    @Param() params: ApprovalIdParamsDto,
    @Body() body: ApproveDto,
  ): Promise<Responses['approveApproval']> {
    return this.approvals.decide(params.id, 'approved', body.reason);
  }

  @Endpoint(APPROVAL_ENDPOINTS.denyApproval)
  deny(
    @Param() params: ApprovalIdParamsDto,
    @Body() body: DenyDto,
  ): Promise<Responses['denyApproval']> {
    return this.approvals.decide(params.id, 'denied', body.reason);
  }
}
