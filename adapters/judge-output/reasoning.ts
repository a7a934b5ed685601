/**
 * The judge's answer without its reasoning, read before any parser sees the text: a model's
 * `<think>` draft is not its verdict (the hosts strip closed blocks; a draft in an unclosed block
 * would otherwise become the verdict).
 * - `<think>...</think>` blocks are removed (tags in any case, the first `</think>` closes);
 * - a `</think>` with no opening tag ends reasoning that began before the output (chat templates
 *   that put `<think>` in the prompt): everything before it is removed;
 * - an unclosed `<think>`: everything after it is reasoning and removed.
 * One pass over the tag positions: linear in the text.
 */
export function stripReasoning(text: string): string {
  const tags = /<(\/?)think>/gi;
  let kept = '';
  let from = 0;
  let openAt = -1;
  for (let m = tags.exec(text); m !== null; m = tags.exec(text)) {
    const closing = m[1] === '/';
    if (openAt >= 0) {
      if (closing) {
        openAt = -1;
        from = m.index + m[0].length;
      }
    } else if (closing) {
      kept = '';
      from = m.index + m[0].length;
    } else {
      kept += text.slice(from, m.index);
      openAt = m.index;
    }
  }
  if (openAt >= 0) return kept;
  return kept + text.slice(from);
}
