import { ago, fullTime } from '../format.js';

/** A moment as "5 min ago", its full local time on hover, machine-readable for assistive tools. */
export function Ago(props: { iso: string }) {
  return (
    <time dateTime={props.iso} title={fullTime(props.iso)}>
      {ago(props.iso)}
    </time>
  );
}
