import { extractJsonObject } from '../../adapters/judge-output/extract-json-object.js';
import { isPyDict, type PyValue } from '../../adapters/judge-output/python-json.js';
import { stripReasoning } from '../../adapters/judge-output/reasoning.js';

/** What could be read from one annotation reply. */
export interface ReadReply {
  /** The items of the reply's list (`nodes` or `edges`), or undefined when none could be read. */
  readonly items: readonly unknown[] | undefined;
  /** The items came from complete `{...}` objects of a reply that was not valid JSON as a whole (cut off, or broken). */
  readonly salvaged: boolean;
}


/**
 * Reads the list under `key` from an annotation reply: the JSON object of the reply (whole text,
 * fence or first balanced object), else every complete flat `{...}` object after the list's key
 * (what a reply cut off by max_tokens still holds: the items before the cut are whole). A reply
 * with neither is unreadable, which the caller counts as a failure, never as "no labels".
 */
export function readReplyList(content: string, key: 'nodes' | 'edges'): ReadReply {
  const text = stripReasoning(content);
  const object = extractJsonObject(text);
  if (object !== undefined) {
    const list = object.value.get(key);
    return { items: Array.isArray(list) ? list.map(toPlain) : undefined, salvaged: false };
  }
  const start = text.search(new RegExp(`"${key}"\\s*:\\s*\\[`));
  if (start < 0) return { items: undefined, salvaged: false };
  const items: unknown[] = [];
  for (const match of text.slice(start).matchAll(/\{[^{}[\]]*\}/g)) {
    try {
      items.push(JSON.parse(match[0]));
    } catch {
      // a broken item is skipped; the criteria or pairs it was about stay undecided and are asked again
    }
  }
  return items.length === 0 ? { items: undefined, salvaged: false } : { items, salvaged: true };
}

/** The judge-output reader keeps Python's dict semantics (last repeated key wins) in maps: plain JSON values here. */
function toPlain(value: PyValue): unknown {
  if (Array.isArray(value)) return value.map(toPlain);
  if (isPyDict(value)) return Object.fromEntries([...value].map(([k, v]) => [k, toPlain(v)]));
  return value;
}
