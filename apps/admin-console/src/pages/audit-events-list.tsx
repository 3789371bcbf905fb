import { ChannelBadge } from '../components/badges.js';
import { ChangesTable } from '../components/changes.js';
import { PersonName, TokenName } from '../components/names.js';
import { fullTime } from '../format.js';
import type { AuditEvent } from '../types.js';

/** Audit events as cards with their before/after changes (a call's or a confirmation's). */
export function AuditEventCards(props: { events: AuditEvent[]; empty: string }) {
  if (props.events.length === 0) return <p class="empty">{props.empty}</p>;
  return (
    <ol class="cards">
      {props.events.map((e) => (
        <li key={e.id} class="card">
          <p>
            <strong>{e.action}</strong> <ChannelBadge channel={e.channel} /> on{' '}
            <ResourceLabel event={e} /> by{' '}
            <PersonName id={e.actor_user_id} name={e.actor_name} email={e.actor_email} /> with{' '}
            <TokenName id={e.token_id} name={e.token_name} kind={e.token_kind} />
            {' · '}
            <time dateTime={e.occurred_at}>{fullTime(e.occurred_at)}</time>
          </p>
          <ChangesTable changes={e.changes} />
        </li>
      ))}
    </ol>
  );
}

/** The resource by its label (e.g. a portal user's e-mail) when the trail has one. */
export function ResourceLabel(props: { event: AuditEvent }) {
  const e = props.event;
  return (
    <span>
      {e.resource_type.replace('_', ' ')}{' '}
      {e.resource_label ? (
        <strong title={e.resource_id}>{e.resource_label}</strong>
      ) : (
        <code title={e.resource_id}>{e.resource_id.slice(0, 8)}</code>
      )}
    </span>
  );
}
