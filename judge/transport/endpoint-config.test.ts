import { describe, expect, it } from 'vitest';
import { GearError } from '../../core/index.js';
import { endpointsFromUrls, metricsUrlOf, parseTransportConfig } from './endpoint-config.js';

describe('endpoint config', () => {
  it('normalises base URLs to the /v1 root and finds the metrics page beside it', () => {
    const urls = endpointsFromUrls(' http://127.0.0.1:8001 , http://h:8000/v1/ ,https://api.example.com/openai/v1,https://x.ai/api/?a=1', {});
    expect(urls.map((e) => e.url)).toEqual(['http://127.0.0.1:8001/v1', 'http://h:8000/v1', 'https://api.example.com/openai/v1', 'https://x.ai/api']);
    expect(urls.map((e) => metricsUrlOf(e.url))).toEqual([
      'http://127.0.0.1:8001/metrics',
      'http://h:8000/metrics',
      'https://api.example.com/openai/metrics',
      'https://x.ai/api/metrics',
    ]);
  });

  it('applies the defaults and the shared model, key and concurrency', () => {
    expect(endpointsFromUrls('http://a:1', {})).toEqual([{ url: 'http://a:1/v1', model: 'default', apiKey: 'EMPTY', maxConcurrent: 32, metrics: false }]);
    expect(endpointsFromUrls('http://a:1,http://b:2', { model: 'grader', apiKey: 'k', maxConcurrent: 8 })[1]).toEqual({
      url: 'http://b:2/v1',
      model: 'grader',
      apiKey: 'k',
      maxConcurrent: 8,
      metrics: false,
    });
    const config = parseTransportConfig({ endpoints: [{ url: 'http://a:1' }] });
    expect(config).toMatchObject({
      requestTimeoutMs: 300_000,
      deadlineMs: 300_000,
      adaptiveConcurrency: true,
      backoff: { baseMs: 50, capMs: 8000, answeringCapMs: 1000, jitter: 'decorrelated' },
      breaker: { consecutiveFailures: 3, baseEjectionMs: 5000, maxEjectionMs: 60_000 },
      hedge: { enabled: true, minDelayMs: 1000, latencyMultiplier: 3, maxHedgeFraction: 0.1 },
      estimatedTokensPerRequest: 2000,
    });
  });

  it('names the field of bad input', () => {
    const message = (f: () => unknown): string => {
      try {
        f();
      } catch (error) {
        expect(error).toBeInstanceOf(GearError);
        return (error as GearError).message;
      }
      throw new Error('no error');
    };
    expect(message(() => endpointsFromUrls('http://a:1,ftp://b', {}))).toMatch(/^endpoints\[1\]\.url: must be an http\(s\) URL/);
    expect(message(() => endpointsFromUrls('http://a:1', { maxConcurrent: 0 }))).toMatch(/^endpoints\[0\]\.maxConcurrent: /);
    expect(message(() => endpointsFromUrls(' , ', {}))).toMatch(/^urls: no endpoint URL given/);
    expect(message(() => parseTransportConfig({ endpoints: [] }))).toMatch(/^endpoints: /);
    expect(message(() => parseTransportConfig({ endpoints: [{ url: 'http://a', rpm: -1 }] }))).toMatch(/^endpoints\[0\]\.rpm: /);
    expect(message(() => parseTransportConfig({ endpoints: [{ url: 'http://a' }], hedge: { maxHedgeFraction: 2 } }))).toMatch(/^hedge\.maxHedgeFraction: /);
    expect(message(() => parseTransportConfig({ endpoints: [{ url: 'http://a' }], breaker: { consecutiveFailures: 1.5 } }))).toMatch(/^breaker\.consecutiveFailures: /);
    expect(message(() => parseTransportConfig({ endpoints: [{ url: 'http://a', modle: 'x' }] }))).toMatch(/^endpoints\[0\]: .*modle/);
  });
});
