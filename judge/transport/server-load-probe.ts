/** The server's own queue as vLLM publishes it (Prometheus text at GET /metrics). */
export interface ServerLoad {
  readonly running: number;
  readonly waiting: number;
}

/**
 * Sums vllm:num_requests_running and vllm:num_requests_waiting over their label sets (one per
 * served model). Undefined when the text has neither metric (not a vLLM server).
 */
export function parseVllmLoad(text: string): ServerLoad | undefined {
  let running: number | undefined;
  let waiting: number | undefined;
  for (const line of text.split('\n')) {
    const m = /^(vllm:num_requests_(?:running|waiting))(?:\{[^}]*\})?\s+([-+0-9.eE]+|NaN)/.exec(line);
    if (m === null) continue;
    const value = Number(m[2]);
    if (!Number.isFinite(value)) continue;
    if (m[1] === 'vllm:num_requests_running') running = (running ?? 0) + value;
    else waiting = (waiting ?? 0) + value;
  }
  if (running === undefined && waiting === undefined) return undefined;
  return { running: running ?? 0, waiting: waiting ?? 0 };
}

export type LoadProbeResult =
  | { readonly ok: true; readonly load: ServerLoad | undefined }
  /** `down`: no answer or a 5xx, a failure signal for the breaker; otherwise merely no load figure. */
  | { readonly ok: false; readonly down: boolean; readonly message: string };

/** One GET of the metrics page. Never throws. */
export async function probeServerLoad(metricsUrl: string, timeoutMs: number, signal?: AbortSignal): Promise<LoadProbeResult> {
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const res = await fetch(metricsUrl, { signal: signal === undefined ? timeout : AbortSignal.any([timeout, signal]) });
    const text = await res.text();
    if (!res.ok) return { ok: false, down: res.status >= 500, message: `metrics: HTTP ${res.status}` };
    return { ok: true, load: parseVllmLoad(text) };
  } catch (error) {
    return { ok: false, down: true, message: `metrics: ${error instanceof Error ? error.message : String(error)}` };
  }
}
