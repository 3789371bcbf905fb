/**
 * What the server tells the model once per connection (`initialize` / `server/discover`). Written
 * for the model: what it manages, how to work with it, and how to read failures.
 */
export const MCP_SERVER_INSTRUCTIONS = `This server manages one organisation on the Platform: its portal users (people invited to the customer portal), its customer accounts, and its audit trail. Every tool acts as the person who authorized this client, inside that person's organisation only; records of other organisations do not exist for you.

How to work:
- Start with get_current_context to learn the organisation, the person, the token's scopes and the person's permissions.
- Find records with list_portal_users / list_accounts (filters, then next_cursor to page) before reading or changing one by id. Read the resource platform://organization for the organisation profile, and platform://portal-users/{id} or platform://accounts/{id} for one record.
- delete_portal_user and delete_account are destructive: they run only after the person confirms. On protocol 2026-07-28 with form elicitation the client shows the person a confirmation question; otherwise the tool answers confirmation_required and nothing runs. Never try to work around a confirmation; tell the person what would be deleted and let them decide.
- The prompts onboard_portal_user and review_recent_activity describe common tasks step by step.

How failures look:
- A failure you can act on is a normal tool result with isError: true. Its text is the API's error envelope: {"error":{"code":"…","message":"…","details":…}}. For VALIDATION_ERROR, DUPLICATE_ERROR and CONFLICT, details is [{"field":"…","message":"…"}], one entry per field to fix. Read the code:
  VALIDATION_ERROR (fix the arguments and call again), NOT_FOUND (no such record in this organisation: search instead of guessing ids), CONFLICT / DUPLICATE_ERROR (a unique value is taken: ask for another), BAD_REQUEST (a business rule; the message says which), FORBIDDEN (not allowed in the record's current state), EXTERNAL_SERVICE_ERROR (the mail service failed; nothing was half-done, try later), USER_DECLINED (the person said no: do not retry), confirmation_required / confirmation_replayed / confirmation_unavailable (nothing ran; the message says what to do).
  Authorization refusals say who can fix them: insufficient_scope (the token does not reach the tool: a different token is needed), insufficient_permission (an organisation admin must grant details.permission), membership_inactive (someone must reactivate the person's membership), key_owner_not_member (the client must be authorized again by a member). Do not retry these; explain them to the person.
- A JSON-RPC error means the request itself was wrong: -32602 for an unknown tool, prompt or argument name (check the tool's inputSchema), a missing resource, or bad prompt arguments; -31403 for an authorization refusal on a resource or prompt (error.data is the same envelope as above); -32603 for an unexpected server failure (error.data.requestId identifies it for support).`;
