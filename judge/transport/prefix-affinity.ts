import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { ChatMessage } from './chat-call.js';

/**
 * Prefix-aware routing: requests that share a leading text go to the endpoint that was sent that
 * text most recently, so its prompt cache (vLLM's prefix caching, SGLang's radix cache,
 * llama.cpp's cache_prompt) evaluates it once. A RuscaRL response's per-criterion requests share
 * header + conversation + response; a prompt's rollouts share header + conversation.
 *
 * The key (llm-d's scheme, over characters instead of tokens): the request's leading text (each
 * message's role and content, in order) cut into blocks of `blockChars` (the first one in
 * quarters); block i's hash is SHA-1(hash of block i-1, block i), so one hash names the whole text
 * up to the end of its block. Only whole blocks count: a text shorter than a quarter block has no key. A bounded LRU map holds
 * block hash -> endpoint of the last request sent with that block; a request's preferred endpoint
 * is the one its longest known prefix was sent to.
 */

export interface PrefixAffinityConfig {
  readonly enabled: boolean;
  /** Characters per block (about a quarter as many tokens); the first block is hashed in quarters. */
  readonly blockChars: number;
  /** Blocks hashed per request: text past blockChars x maxBlocks does not count. */
  readonly maxBlocks: number;
  /** Block hashes remembered (LRU). */
  readonly maxEntries: number;
  /** Out of balance (then least-outstanding) when load(preferred) - min load > this ... */
  readonly balanceAbsolute: number;
  /** ... and load(preferred) > this x min load (SGLang's gateway: both must hold). */
  readonly balanceRelative: number;
  /** Waiting calls looked at, per free slot, for one that prefers it. */
  readonly lookahead: number;
}

/** A request's prefix key: the chained hashes of its leading text's whole blocks, first block first. */
export interface PrefixKey {
  readonly blocks: readonly number[];
}

/** The text the key is made from: each message's role and content, in order, with separators no text holds. */
export function leadingText(messages: readonly ChatMessage[]): string {
  let text = '';
  for (const m of messages) text += `${m.role}\u0000${m.content}\u0001`;
  return text;
}

/**
 * Where the blocks of a text of `length` characters end: the first `blockChars` in quarters (a
 * response's shared prefix can be as short as ~450 characters: the grader's header, a one-line
 * question and a short answer), then every `blockChars`; at most `maxBlocks` blocks, whole ones only.
 */
export function blockEnds(length: number, blockChars: number, maxBlocks: number): number[] {
  const ends: number[] = [];
  const quarter = Math.max(1, Math.floor(blockChars / 4));
  for (let end = quarter; end <= length && ends.length < maxBlocks; end += end < blockChars ? quarter : blockChars) {
    ends.push(end);
    if (end < blockChars && end + quarter > blockChars) end = blockChars - quarter;
  }
  return ends;
}

/**
 * The chained block hashes of `messages`' leading text. Equal leading text up to a block's end
 * gives equal hashes up to that block, whatever follows; 48 bits of each SHA-1 (a collision only
 * routes a request to another endpoint, it never changes an answer). One SHA-1 per block (~3 us of
 * call overhead each here): hence quarters only in the first block.
 */
export function prefixKeyOf(messages: readonly ChatMessage[], blockChars: number, maxBlocks: number): PrefixKey | undefined {
  const text = leadingText(messages);
  const ends = blockEnds(text.length, blockChars, maxBlocks);
  if (ends.length === 0) return undefined;
  const blocks: number[] = [];
  let previous: Buffer | undefined;
  let start = 0;
  for (const end of ends) {
    const hash = createHash('sha1');
    if (previous !== undefined) hash.update(previous);
    hash.update(text.slice(start, end));
    previous = hash.digest();
    blocks.push(previous.readUIntLE(0, 6));
    start = end;
  }
  return { blocks };
}

/** What routing needs to know of an endpoint (JudgeEndpoint has it). */
export interface AffinityEndpoint {
  load(): number;
  hasCapacity(): boolean;
}

/** The preferred endpoint of a key and how many leading blocks of it were sent there. */
export interface PrefixMatch<E> {
  readonly endpoint: E;
  readonly blocks: number;
}

/**
 * The routing decision for one waiting call: `go` to its preferred endpoint; `wait`: the preferred
 * endpoint is full, or out of balance with the others, and the router decides which waiting call
 * goes elsewhere (least-outstanding): the one with the fewest known blocks to lose, so a new
 * rollout moves before a response's next criterion; `none`: no preference (no key, no known
 * prefix, or the preferred endpoint is unusable for this call): least-outstanding.
 */
export type AffinityChoice<E> =
  | { readonly kind: 'go'; readonly endpoint: E }
  | { readonly kind: 'wait'; readonly blocks: number; readonly why: 'full' | 'unbalanced' }
  | { readonly kind: 'none'; readonly why: 'no-key' | 'unknown' };

/** Why an attempt went where it went, for the counts in info(). */
export type AffinityOutcome = 'followed' | 'moved' | 'unknown' | 'unbalanced' | 'no-key';

export interface PrefixAffinityStats {
  /** Attempts sent to the endpoint their prefix was last sent to. */
  readonly followed: number;
  /** Attempts moved elsewhere because their preferred endpoint was out of balance with the others (both thresholds). */
  readonly unbalanced: number;
  /** Attempts that waited for their full preferred endpoint, then went elsewhere to keep a free slot busy. */
  readonly moved: number;
  /** Attempts with a key but no usable known prefix (a new prefix, or its endpoint ejected). */
  readonly unknown: number;
}

/**
 * The block map and the rule. Endpoints are identified by their index in the router's list.
 * Pure bookkeeping: no timers, no I/O.
 */
export class PrefixAffinity<E extends AffinityEndpoint> {
  private readonly map: LRUCache<number, number>;
  private stats = { followed: 0, unbalanced: 0, moved: 0, unknown: 0 };

  constructor(
    readonly config: PrefixAffinityConfig,
    private readonly endpoints: readonly E[],
  ) {
    this.map = new LRUCache<number, number>({ max: config.maxEntries });
  }

  keyOf(messages: readonly ChatMessage[]): PrefixKey | undefined {
    return prefixKeyOf(messages, this.config.blockChars, this.config.maxBlocks);
  }

  /**
   * The endpoint the longest known prefix of `key` was last sent to. Block i+1 known implies block
   * i known (record() sets a chain deepest block first, so the LRU evicts a chain from its deep
   * end), so the longest known prefix is found by binary search.
   */
  match(key: PrefixKey): PrefixMatch<E> | undefined {
    let lo = 0;
    let hi = key.blocks.length;
    // Invariant: blocks [0, lo) known; blocks [hi, n) unknown.
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.map.has(key.blocks[mid] as number, { updateAgeOnHas: false })) lo = mid + 1;
      else hi = mid;
    }
    if (lo === 0) return undefined;
    const index = this.map.peek(key.blocks[lo - 1] as number);
    const endpoint = index === undefined ? undefined : this.endpoints[index];
    return endpoint === undefined ? undefined : { endpoint, blocks: lo };
  }

  /**
   * Follow the preference, wait for it, or not. `usable`: the endpoints this call may use now
   * (accepting traffic, not excluded, not where it failed).
   */
  choose(key: PrefixKey | undefined, usable: readonly E[]): AffinityChoice<E> {
    if (key === undefined) return { kind: 'none', why: 'no-key' };
    const found = this.match(key);
    if (found === undefined || !usable.includes(found.endpoint)) return { kind: 'none', why: 'unknown' };
    if (this.unbalanced(found.endpoint, usable)) return { kind: 'wait', blocks: found.blocks, why: 'unbalanced' };
    if (found.endpoint.hasCapacity()) return { kind: 'go', endpoint: found.endpoint };
    return { kind: 'wait', blocks: found.blocks, why: 'full' };
  }

  /** SGLang's gateway rule: out of balance only when both the absolute and the relative threshold are passed. */
  unbalanced(preferred: E, usable: readonly E[]): boolean {
    let min = Infinity;
    for (const e of usable) min = Math.min(min, e.load());
    const load = preferred.load();
    return load - min > this.config.balanceAbsolute && load > this.config.balanceRelative * min;
  }

  /** An attempt with `key` was sent to `endpoint`; `how` says why it went there. */
  record(key: PrefixKey | undefined, endpoint: E, how: AffinityOutcome): void {
    if (key === undefined) return;
    if (how !== 'no-key') this.stats[how]++;
    const index = this.endpoints.indexOf(endpoint);
    if (index < 0) return;
    // Deepest block first: the shallow blocks end up the most recently used, so eviction takes
    // a chain from its deep end and a known block's ancestors stay known (match()'s search).
    for (let i = key.blocks.length - 1; i >= 0; i--) this.map.set(key.blocks[i] as number, index);
  }

  info(): PrefixAffinityStats & { readonly entries: number } {
    return { ...this.stats, entries: this.map.size };
  }
}
