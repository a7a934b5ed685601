import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson } from '../cache/cache-key.js';
import type { ChatCall, ChatMessage } from './chat-call.js';
import { ChatBodyText, chatCompletionBody, messagesJson } from './openai-exchange.js';

const message: fc.Arbitrary<ChatMessage> = fc.record({ role: fc.constantFrom('system', 'user', 'assistant'), content: fc.string({ unit: 'binary' }) });
const decoding = fc.record(
  {
    temperature: fc.double({ noNaN: true, noDefaultInfinity: true }),
    top_p: fc.double({ min: 0, max: 1, noNaN: true }),
    max_tokens: fc.nat(),
    top_k: fc.integer({ min: -1, max: 100 }),
    seed: fc.integer(),
    chat_template_kwargs: fc.dictionary(fc.string(), fc.jsonValue()),
    // Fields sent as given, among them the ones the body sets itself (they must not win or repeat).
    extra: fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('model', 'messages', 'temperature', 'response_format')), fc.jsonValue()),
  },
  { requiredKeys: ['temperature', 'top_p', 'max_tokens'] },
);
const call: fc.Arbitrary<ChatCall> = fc.record(
  {
    messages: fc.array(message, { maxLength: 4 }),
    decoding,
    responseFormat: fc.record({ name: fc.string(), schema: fc.dictionary(fc.string(), fc.jsonValue()) }),
    logprobs: fc.record({ top: fc.nat(20) }),
  },
  { requiredKeys: ['messages', 'decoding'] },
);

describe('messagesJson', () => {
  it('writes the messages as canonical JSON does (the cache key hashes this text)', () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 5 }), (messages) => {
        expect(messagesJson(messages)).toBe(canonicalJson(messages));
      }),
    );
  });
});

describe('ChatBodyText', () => {
  it('is the JSON of chatCompletionBody for each endpoint model', () => {
    fc.assert(
      fc.property(call, fc.string(), fc.string(), (c, model, other) => {
        const body = new ChatBodyText(c);
        expect(JSON.parse(body.for(model))).toEqual(JSON.parse(JSON.stringify(chatCompletionBody(model, c))));
        expect(JSON.parse(body.for(other))).toEqual(JSON.parse(JSON.stringify(chatCompletionBody(other, c))));
      }),
    );
  });

  it("sends the caller's messagesJson as it is, not the messages written again", () => {
    const c: ChatCall = { messages: [{ role: 'user', content: 'a' }], decoding: { temperature: 0, top_p: 1, max_tokens: 4 }, messagesJson: '[{"content":"written once","role":"user"}]' };
    expect(JSON.parse(new ChatBodyText(c).for('m'))).toEqual({ model: 'm', messages: [{ content: 'written once', role: 'user' }], temperature: 0, top_p: 1, max_tokens: 4 });
  });
});
