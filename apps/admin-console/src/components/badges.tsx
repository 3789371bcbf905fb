import { CHANNEL_LABELS } from '../audit-vocabulary.js';
import { outcomeLabel } from '../outcome.js';

/** The outcome class of a tool call, in words and colour (never colour alone), with its status. */
export function OutcomeBadge(props: { outcome: string; status?: string }) {
  const showStatus = props.status !== undefined && props.status !== 'ok';
  return (
    <span class={`badge outcome-${props.outcome}`}>
      {outcomeLabel(props.outcome)}
      {showStatus ? <span class="badge-detail">{props.status}</span> : null}
    </span>
  );
}

export function ChannelBadge(props: { channel: string }) {
  const label =
    (CHANNEL_LABELS as Record<string, string | undefined>)[props.channel] ?? props.channel;
  return <span class={`badge channel-${props.channel}`}>{label}</span>;
}

export function StatusBadge(props: { status: string }) {
  return <span class={`badge status-${props.status}`}>{props.status}</span>;
}
