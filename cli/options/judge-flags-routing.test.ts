import { describe, expect, it } from 'vitest';
import { GearError } from '../../core/index.js';
import { judgeConfigFromFlags } from './judge-flags.js';

describe('--routing (gear judge, gear serve, gear graph build)', () => {
  it('leaves prefix-aware routing at its default (on) when not given', () => {
    expect(judgeConfigFromFlags({ 'judge-url': 'http://a:1,http://b:2' }, {})?.transport.prefixAffinity).toBeUndefined();
  });

  it('turns prefix-aware routing off with least-outstanding, on with prefix, from the flag or GEAR_JUDGE_ROUTING', () => {
    expect(judgeConfigFromFlags({ 'judge-url': 'http://a:1,http://b:2', routing: 'least-outstanding' }, {})?.transport.prefixAffinity).toEqual({ enabled: false });
    expect(judgeConfigFromFlags({ 'judge-url': 'http://a:1,http://b:2' }, { GEAR_JUDGE_ROUTING: 'least-outstanding' })?.transport.prefixAffinity).toEqual({ enabled: false });
    expect(judgeConfigFromFlags({ 'judge-url': 'http://a:1,http://b:2', routing: 'prefix' }, { GEAR_JUDGE_ROUTING: 'least-outstanding' })?.transport.prefixAffinity).toEqual({ enabled: true });
  });

  it('refuses any other value, naming the flag', () => {
    let error: unknown;
    try {
      judgeConfigFromFlags({ 'judge-url': 'http://a:1', routing: 'round-robin' }, {});
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GearError);
    expect((error as GearError).message).toContain('--routing');
  });
});
