/** Where a task stands (the tasks extension's statuses); the last three are terminal. */
export const TASK_STATUSES = [
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export function isTerminal(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** Who a task belongs to: the person and organisation of the token that created it. */
export interface TaskOwner {
  organizationId: string;
  userId: string;
}

/** A JSON-RPC error object, as a failed task inlines it. */
export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

/** One task (table `mcp_tasks`). */
export interface McpTask extends TaskOwner {
  id: string;
  /** The token that created it (the requester's call ran with it). */
  tokenId: string;
  tool: string;
  arguments: Record<string, unknown>;
  /** The approval request a call under the `approval` policy waits for; null otherwise. */
  approvalId: string | null;
  status: TaskStatus;
  statusMessage: string | null;
  /** `input_required`: what the client is still asked, keyed as the server named them. */
  inputRequests: Record<string, unknown> | null;
  /** Every answer received so far (a re-run of the tool reads them all). */
  inputResponses: Record<string, unknown>;
  /** `completed`: the tool's result (a tool error is `isError: true` in it). */
  result: Record<string, unknown> | null;
  /** `failed`: the JSON-RPC error. */
  error: TaskError | null;
  ttlMs: number;
  pollIntervalMs: number;
  createdAt: Date;
  lastUpdatedAt: Date;
  expiresAt: Date;
}

/** A task to record; it expires `ttlMs` after the database's `now()`. */
export interface NewTask extends TaskOwner {
  tokenId: string;
  tool: string;
  arguments: Record<string, unknown>;
  approvalId: string | null;
  statusMessage: string | null;
  inputResponses: Record<string, unknown>;
  ttlMs: number;
  pollIntervalMs: number;
}
