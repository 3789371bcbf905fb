/**
 * A recorded tool call's fields, as `mcp_tool_calls` stores them and `GET /v1/mcp/tool-calls`
 * answers them: `Time` is a `Date` in the row and ISO 8601 text in the JSON. This file imports
 * nothing: the admin console (a browser bundle, apps/admin-console) reads the calls as this too.
 */
export interface ToolCallFields<Time> {
  id: string;
  tool: string;
  status: string;
  is_error: boolean;
  era: string;
  protocol_version: string;
  client_name: string | null;
  user_id: string;
  token_id: string;
  duration_ms: number;
  confirmation_id: string | null;
  /** The approval request (policy `approval`) the call ran under or was refused for. */
  approval_id: string | null;
  request_id: string;
  trace_id: string | null;
  correlation_id: string | null;
  arguments_digest: string | null;
  created_at: Time;
}
