/**
 * One endpoint's circuit breaker, in Envoy outlier-detection terms, as a pure state machine (the
 * caller supplies the time). `consecutiveFailures` failures in a row eject the endpoint for
 * baseEjectionMs x (ejections so far), capped at maxEjectionMs; when that has passed, exactly one
 * request is let through (half-open, "probing"); its success closes the breaker, its failure ejects
 * again for longer. Results of requests sent before an ejection change nothing: only the probe
 * decides.
 */

export interface BreakerConfig {
  readonly consecutiveFailures: number;
  readonly baseEjectionMs: number;
  readonly maxEjectionMs: number;
}

export type BreakerState =
  | { readonly state: 'healthy'; readonly failures: number; readonly ejections: number }
  | { readonly state: 'ejected'; readonly until: number; readonly ejections: number }
  | { readonly state: 'probing'; readonly probeInFlight: boolean; readonly ejections: number };

export type BreakerView = 'healthy' | 'ejected' | 'probing';

export const INITIAL_BREAKER: BreakerState = { state: 'healthy', failures: 0, ejections: 0 };

/** The state as routing sees it at `now`: an ejection whose time is over is probing. */
export function breakerView(s: BreakerState, now: number): BreakerView {
  if (s.state === 'ejected') return now >= s.until ? 'probing' : 'ejected';
  return s.state;
}

/** Whether a request may be sent now (healthy, or probing with no probe out). */
export function breakerAdmits(s: BreakerState, now: number): boolean {
  if (s.state === 'healthy') return true;
  if (s.state === 'ejected') return now >= s.until;
  return !s.probeInFlight;
}

/**
 * Sends one request. Returns the new state and whether this request is the half-open probe;
 * undefined when the breaker admits nothing now.
 */
export function breakerDispatch(s: BreakerState, now: number): { state: BreakerState; probe: boolean } | undefined {
  if (!breakerAdmits(s, now)) return undefined;
  if (s.state === 'healthy') return { state: s, probe: false };
  return { state: { state: 'probing', probeInFlight: true, ejections: s.ejections }, probe: true };
}

export function ejectionMs(ejections: number, config: BreakerConfig): number {
  return Math.min(config.maxEjectionMs, config.baseEjectionMs * ejections);
}

function eject(ejections: number, now: number, config: BreakerConfig): BreakerState {
  const next = ejections + 1;
  return { state: 'ejected', until: now + ejectionMs(next, config), ejections: next };
}

export function breakerSuccess(s: BreakerState, probe: boolean): BreakerState {
  if (s.state === 'healthy') return s.failures === 0 ? s : { ...s, failures: 0 };
  if (s.state === 'probing' && probe) return { state: 'healthy', failures: 0, ejections: s.ejections };
  return s;
}

export function breakerFailure(s: BreakerState, probe: boolean, now: number, config: BreakerConfig): BreakerState {
  if (s.state === 'healthy') {
    const failures = s.failures + 1;
    return failures >= config.consecutiveFailures ? eject(s.ejections, now, config) : { ...s, failures };
  }
  if (s.state === 'probing' && probe) return eject(s.ejections, now, config);
  return s;
}

/**
 * A request sent in panic (every endpoint ejected, so traffic went to the ejected ones anyway, as
 * Envoy's panic threshold does) was answered: the endpoint serves, and is healthy again.
 */
export function breakerPanicSuccess(s: BreakerState): BreakerState {
  if (s.state === 'healthy') return s.failures === 0 ? s : { ...s, failures: 0 };
  return { state: 'healthy', failures: 0, ejections: s.ejections };
}

/** The probe ended without a verdict (the caller gave up on it): another probe may go. */
export function breakerInconclusive(s: BreakerState, probe: boolean): BreakerState {
  if (s.state === 'probing' && probe) return { ...s, probeInFlight: false };
  return s;
}
