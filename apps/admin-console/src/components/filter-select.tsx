/**
 * One filter of a list: a labelled select whose first option, "Any", clears it. `options` are
 * `[value, text]` pairs; `onChange` gets the chosen value, or undefined for "Any".
 */
export function FilterSelect(props: {
  label: string;
  name: string;
  value: string | undefined;
  options: readonly (readonly [string, string])[];
  onChange: (value: string | undefined) => void;
}) {
  return (
    <label>
      {props.label}
      <select
        name={props.name}
        value={props.value ?? ''}
        onChange={(e) => props.onChange(e.currentTarget.value || undefined)}
      >
        <option value="">Any</option>
        {props.options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}
