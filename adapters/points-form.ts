/**
 * Whether a rubric item's `points` was written as a float (`7.0`) or an integer (`7`) in the JSON
 * text it came from. JSON.parse reads both as the number 7, but the hosts' policy-side texts
 * (RuscaRL's scaffold, MeRF's motivation) print points with Python's str(), which keeps the
 * difference: `(worth 7 points)` for an int, `(worth 7.0 points)` for a float (rows from a
 * parquet file's float64 column). The input boundaries that hold the text (`gear judge` / `gear
 * score` lines, the service's messages) parse with `parseJsonKeepingPointsForm`, which marks the
 * item objects whose integral points were written with a fraction or an exponent; the scaffold
 * asks `pointsWrittenAsFloat`. A row built in JavaScript (no text) reads as integers.
 *
 * How: the text's `"points": <number>` lexemes are found in order (a `"points"` followed by a
 * colon can only be a key: quotes inside JSON strings are escaped), and JSON.parse's reviver,
 * which visits the same keys, pairs them up. Only texts with such a lexeme take the reviver's
 * slower parse; when the counts do not match (an object with integer-like keys reorders the
 * visits), nothing is marked.
 */
const FLOAT_POINTS = new WeakSet<object>();
const POINTS_NUMBER = /"points"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)/g;
const FLOAT_LEXEME = /[.eE]/;

/** JSON.parse, marking the objects whose integral `points` the text wrote as a float. @throws SyntaxError */
export function parseJsonKeepingPointsForm(text: string): unknown {
  if (!text.includes('"points"')) return JSON.parse(text);
  const lexemes = Array.from(text.matchAll(POINTS_NUMBER), (m) => m[1] as string);
  if (!lexemes.some((l) => FLOAT_LEXEME.test(l))) return JSON.parse(text);
  let seen = 0;
  const marked: object[] = [];
  const value: unknown = JSON.parse(text, function (this: object, key: string, v: unknown) {
    if (key === 'points' && typeof v === 'number') {
      const lexeme = lexemes[seen++];
      if (lexeme !== undefined && FLOAT_LEXEME.test(lexeme) && Number.isInteger(v)) marked.push(this);
    }
    return v;
  });
  if (seen === lexemes.length) for (const holder of marked) FLOAT_POINTS.add(holder);
  return value;
}

/** Whether `item.points` was written as a float in the JSON text `item` was parsed from. */
export function pointsWrittenAsFloat(item: unknown): boolean {
  return typeof item === 'object' && item !== null && FLOAT_POINTS.has(item);
}
