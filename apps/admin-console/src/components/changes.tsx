import { json } from '../format.js';
import type { Change } from '../types.js';

/** An audit event's changes, field by field: before → after. */
export function ChangesTable(props: { changes: Record<string, Change> }) {
  const fields = Object.keys(props.changes);
  if (fields.length === 0) return <p class="muted">No field changes recorded.</p>;
  return (
    <table class="changes">
      <caption class="visually-hidden">Changed fields</caption>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Before</th>
          <th scope="col">After</th>
        </tr>
      </thead>
      <tbody>
        {fields.map((field) => {
          const change = props.changes[field];
          return (
            <tr key={field}>
              <th scope="row">
                <code>{field}</code>
              </th>
              <td class="before">
                <code>{json(change.before)}</code>
              </td>
              <td class="after">
                <code>{json(change.after)}</code>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
