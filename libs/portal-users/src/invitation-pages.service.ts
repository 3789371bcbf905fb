import { Injectable } from '@nestjs/common';
import { InvitationFormTokens } from './invitation-form-token.js';
import {
  acceptedPage,
  formRefusedPage,
  invitationGonePage,
  invitationPage,
} from './invitation-page.js';
import { hashInvitationToken } from './invitation-token.js';
import { PortalUsersService } from './portal-users.service.js';

/** An HTML answer: status and page. */
export interface HtmlPage {
  status: number;
  html: string;
}

/** What a browser's form POST carries besides its fields (the request's own provenance). */
export interface FormSubmission {
  fields: unknown;
  /** The `Sec-Fetch-Site` request header, when the browser sent one. */
  fetchSite: string | undefined;
}

/**
 * The invitation link as a person in a browser uses it: GET shows the invitation with an accept
 * button; the button's form POST accepts it and says so. A link that no longer works is a page
 * that says so (404), never a JSON envelope; a form that this server did not render (missing or
 * wrong form token, or sent from another site) is refused (403) and changes nothing.
 */
@Injectable()
export class InvitationPagesService {
  constructor(
    private readonly portalUsers: PortalUsersService,
    private readonly forms: InvitationFormTokens,
  ) {}

  async show(token: string): Promise<HtmlPage> {
    const invitation = await this.portalUsers.findInvitation(token);
    if (invitation === undefined) return { status: 404, html: invitationGonePage() };
    return {
      status: 200,
      html: invitationPage(invitation, this.forms.issue(hashInvitationToken(token))),
    };
  }

  async submit(token: string, form: FormSubmission): Promise<HtmlPage> {
    const crossSite = form.fetchSite !== undefined && form.fetchSite !== 'same-origin';
    const presented = fieldOf(form.fields, 'form_token');
    if (crossSite || !this.forms.verify(hashInvitationToken(token), presented)) {
      return { status: 403, html: formRefusedPage() };
    }
    const accepted = await this.portalUsers.acceptInvitationFromPage(token);
    if (accepted === undefined) return { status: 404, html: invitationGonePage() };
    return { status: 200, html: acceptedPage(accepted) };
  }
}

function fieldOf(fields: unknown, name: string): unknown {
  return typeof fields === 'object' && fields !== null ? Reflect.get(fields, name) : undefined;
}
