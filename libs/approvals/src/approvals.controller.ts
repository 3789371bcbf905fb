import { Body, Controller, Param, Query, UsePipes } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ApiValidationPipe, Endpoint, type Page, type Plain } from '@app/rest-contract';
import { APPROVAL_ENDPOINTS } from './approvals.endpoints.js';
import { Approvals } from './approvals.service.js';
import {
  ApprovalDto,
  ApprovalIdParamsDto,
  ApproveDto,
  DenyDto,
  ListApprovalsQueryDto,
  PendingApprovalCountDto,
} from './approvals.dto.js';

/** Approval requests: `org:admin` scope and `admin` permission. */
@ApiTags('mcp')
@ApiBearerAuth()
@UsePipes(ApiValidationPipe)
@Controller()
export class ApprovalsController {
  constructor(private readonly approvals: Approvals) {}

  @Endpoint(APPROVAL_ENDPOINTS.listApprovals)
  list(@Query() query: ListApprovalsQueryDto): Promise<Page<Plain<ApprovalDto>>> {
    return this.approvals.list(query);
  }

  @Endpoint(APPROVAL_ENDPOINTS.countPendingApprovals)
  countPending(): Promise<Plain<PendingApprovalCountDto>> {
    return this.approvals.countPending();
  }

  @Endpoint(APPROVAL_ENDPOINTS.approveApproval)
  approve(
    @Param() params: ApprovalIdParamsDto,
    @Body() body: ApproveDto,
  ): Promise<Plain<ApprovalDto>> {
    return this.approvals.decide(params.id, 'approved', body.reason);
  }

  @Endpoint(APPROVAL_ENDPOINTS.denyApproval)
  deny(@Param() params: ApprovalIdParamsDto, @Body() body: DenyDto): Promise<Plain<ApprovalDto>> {
    return this.approvals.decide(params.id, 'denied', body.reason);
  }
}
