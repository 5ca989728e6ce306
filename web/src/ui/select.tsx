// A labelled <select> of fixed options, each shown through `render` (usually a translation).
export function Select({
  id,
  label,
  value,
  onChange,
  options,
  render,
}: {
  id: string;
  label: string;
  value: string;
  onChange(v: string): void;
  options: string[];
  render(v: string): string;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        {options.map((o) => (
          <option key={o} value={o}>
            {render(o)}
          </option>
        ))}
      </select>
    </div>
  );
}
