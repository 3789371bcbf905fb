import type { FastifyReply } from 'fastify';

/**
 * What a route of a signed-in person's page answers: a page (with its status) or a redirect (to
 * sign in, or on once decided). The consent page and the confirmation page answer alike.
 */
export type PageOutcome =
  { kind: 'page'; status: number; html: string } | { kind: 'redirect'; url: string };

/** Writes an outcome on the reply: 303 with `location`, or the page's status and body. */
export function answerPage(reply: FastifyReply, outcome: PageOutcome): string {
  if (outcome.kind === 'redirect') {
    void reply.code(303).header('location', outcome.url);
    return '';
  }
  void reply.code(outcome.status);
  return outcome.html;
}

/**
 * The named text fields of a posted page form; a field that is missing or not a single string is
 * undefined (the service then answers as for a field never sent).
 */
export function formFields<Name extends string>(
  form: Record<string, unknown> | undefined,
  names: readonly Name[],
): Partial<Record<Name, string>> {
  const fields: Partial<Record<Name, string>> = {};
  for (const name of names) {
    const value = form?.[name];
    if (typeof value === 'string') fields[name] = value;
  }
  return fields;
}
