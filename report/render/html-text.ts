/** Text for HTML element content and attribute values. */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A number as the page shows it: integers whole, others to 4 decimals (tiny ones in exponent form); null as a dash. */
export function shown(value: number | null | undefined, digits = 4): string {
  if (value === null || value === undefined) return '–';
  if (value === 0) return '0';
  // Tiny differences (gear_exact - gear) would read as -0.0000.
  if (Math.abs(value) < 10 ** -digits) return value.toExponential(1);
  if (Number.isInteger(value)) return value.toLocaleString('en-US').replaceAll(',', '\u2009');
  return value.toFixed(digits);
}

/**
 * A table cell holding one figure of the model: `data-figure` is its path in the JSON model
 * (`gear report --format json`), `data-value` the exact number, the text the rounded one. The
 * browser test reads these back and compares them with the JSON.
 */
export function figure(path: string, value: number | null | undefined, digits = 4, tag = 'td'): string {
  const exact = value === null || value === undefined ? 'null' : String(value);
  return `<${tag} class="num" data-figure="${esc(path)}" data-value="${exact}">${shown(value, digits)}</${tag}>`;
}

export const cell = (text: string, cls = ''): string => `<td${cls === '' ? '' : ` class="${cls}"`}>${esc(text)}</td>`;
