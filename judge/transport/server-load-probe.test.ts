import { describe, expect, it } from 'vitest';
import { parseVllmLoad } from './server-load-probe.js';
import { LatencyWindow } from './latency-window.js';

describe('vLLM load from /metrics', () => {
  it('sums running and waiting over label sets', () => {
    const text = [
      '# HELP vllm:num_requests_running Number of requests in model execution batches.',
      '# TYPE vllm:num_requests_running gauge',
      'vllm:num_requests_running{engine="0",model_name="grader"} 7.0',
      'vllm:num_requests_running{engine="1",model_name="grader"} 2.0',
      'vllm:num_requests_waiting{engine="0",model_name="grader"} 11.0',
      'vllm:num_requests_waiting_by_reason{reason="capacity"} 99.0',
      'vllm:num_requests_swapped{model_name="grader"} 5.0',
    ].join('\n');
    expect(parseVllmLoad(text)).toEqual({ running: 9, waiting: 11 });
    expect(parseVllmLoad('vllm:num_requests_waiting 3')).toEqual({ running: 0, waiting: 3 });
  });
  it('is undefined for a page without them', () => {
    expect(parseVllmLoad('process_cpu_seconds_total 12.5\n')).toBeUndefined();
    expect(parseVllmLoad('')).toBeUndefined();
  });
});

describe('latency window', () => {
  it('keeps the last samples and answers nearest-rank quantiles', () => {
    const w = new LatencyWindow(4);
    expect(w.quantile(0.95)).toBeUndefined();
    for (const ms of [100, 1, 2, 3, 4]) w.add(ms);
    expect(w.size).toBe(4);
    expect(w.quantile(0.5)).toBe(2);
    expect(w.quantile(0.95)).toBe(4);
    w.add(50);
    expect(w.quantile(1)).toBe(50);
  });
});
