/**
 * Python's str(float(x)) for a finite number, because hosts render points into prompts with it
 * ("(points=5.0)", "1e-05", "1e+16"): shortest round-trip digits, ".0" on integral values,
 * scientific notation when the decimal exponent is < -4 or >= 16.
 */
export function pythonFloatRepr(x: number): string {
  if (!Number.isFinite(x)) throw new RangeError(`pythonFloatRepr: ${x} is not finite`);
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, exp] = x.toExponential().split('e') as [string, string];
  const e = Number(exp);
  if (e < -4 || e >= 16) return `${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  const plain = x.toFixed(Math.max(0, (mantissa.split('.')[1]?.length ?? 0) - e));
  return plain.includes('.') ? plain : `${plain}.0`;
}

/**
 * Python's f"{x:g}" for a finite number (6 significant digits, trailing zeros dropped,
 * scientific notation when the decimal exponent is < -4 or >= 6), as PLawBench subitem points
 * are printed ("(+2)", "(+0.5)").
 */
export function pythonFormatG(x: number): string {
  if (!Number.isFinite(x)) throw new RangeError(`pythonFormatG: ${x} is not finite`);
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const [mantissa, exp] = x.toExponential(5).split('e') as [string, string];
  const e = Number(exp);
  const trim = (s: string): string => (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s);
  if (e < -4 || e >= 6) return `${trim(mantissa)}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  return trim(x.toFixed(5 - e));
}
