import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  INITIAL_BREAKER,
  breakerAdmits,
  breakerDispatch,
  breakerFailure,
  breakerInconclusive,
  breakerSuccess,
  breakerView,
  ejectionMs,
  type BreakerConfig,
  type BreakerState,
} from './circuit-breaker.js';

type Op =
  | { op: 'wait'; ms: number }
  | { op: 'send' }
  | { op: 'result'; pick: number; outcome: 'success' | 'failure' | 'inconclusive' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 400 }) }),
  fc.record({ op: fc.constant('send' as const) }),
  fc.record({ op: fc.constant('result' as const), pick: fc.nat(), outcome: fc.constantFrom('success' as const, 'failure' as const, 'inconclusive' as const) }),
);

const configArb: fc.Arbitrary<BreakerConfig> = fc
  .record({ consecutiveFailures: fc.integer({ min: 1, max: 5 }), baseEjectionMs: fc.integer({ min: 1, max: 300 }), cap: fc.integer({ min: 1, max: 6 }) })
  .map(({ consecutiveFailures, baseEjectionMs, cap }) => ({ consecutiveFailures, baseEjectionMs, maxEjectionMs: baseEjectionMs * cap }));

describe('circuit breaker state machine', () => {
  it('ejects after consecutiveFailures, lets exactly one probe through per ejection, and never sends while ejected', () => {
    fc.assert(
      fc.property(configArb, fc.array(opArb, { maxLength: 200 }), (config, ops) => {
        let s: BreakerState = INITIAL_BREAKER;
        let now = 0;
        const outstanding: { probe: boolean }[] = [];
        // Our own model of the rules, kept next to the implementation's state.
        let streak = 0;
        let ejections = 0;
        let probesThisEjection = 0;
        let unansweredProbes = 0;
        for (const step of ops) {
          if (step.op === 'wait') {
            now += step.ms;
            continue;
          }
          if (step.op === 'send') {
            const view = breakerView(s, now);
            const sent = breakerDispatch(s, now);
            expect(sent !== undefined).toBe(breakerAdmits(s, now));
            if (view === 'ejected') expect(sent).toBeUndefined();
            if (view === 'healthy') expect(sent?.probe).toBe(false);
            if (sent === undefined) continue;
            if (sent.probe) {
              probesThisEjection++;
              // A further probe only after one ended without a verdict.
              expect(probesThisEjection).toBeLessThanOrEqual(1 + unansweredProbes);
              // One probe out at a time.
              expect(outstanding.some((o) => o.probe)).toBe(false);
            }
            s = sent.state;
            outstanding.push({ probe: sent.probe });
            continue;
          }
          if (outstanding.length === 0) continue;
          const [req] = outstanding.splice(step.pick % outstanding.length, 1) as [{ probe: boolean }];
          const before = s;
          if (step.outcome === 'success') s = breakerSuccess(s, req.probe);
          else if (step.outcome === 'inconclusive') s = breakerInconclusive(s, req.probe);
          else s = breakerFailure(s, req.probe, now, config);

          if (before.state === 'healthy') {
            if (step.outcome === 'failure') streak++;
            else if (step.outcome === 'success') streak = 0;
            if (streak >= config.consecutiveFailures) {
              ejections++;
              streak = 0;
              probesThisEjection = 0;
              unansweredProbes = 0;
              expect(s).toEqual({ state: 'ejected', until: now + Math.min(config.maxEjectionMs, config.baseEjectionMs * ejections), ejections });
            } else {
              expect(s.state).toBe('healthy');
            }
          } else if (req.probe && step.outcome === 'failure') {
            ejections++;
            probesThisEjection = 0;
            unansweredProbes = 0;
            expect(s).toEqual({ state: 'ejected', until: now + ejectionMs(ejections, config), ejections });
          } else if (req.probe && step.outcome === 'success') {
            expect(s).toEqual({ state: 'healthy', failures: 0, ejections });
          } else if (req.probe) {
            unansweredProbes++;
            expect(s).toEqual({ ...before, probeInFlight: false });
          } else {
            // Late results of requests sent before the ejection decide nothing.
            expect(s).toBe(before);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('ejection time grows with each ejection and stays within [base, max]', () => {
    fc.assert(
      fc.property(configArb, fc.integer({ min: 1, max: 50 }), (config, n) => {
        const ms = ejectionMs(n, config);
        expect(ms).toBeGreaterThanOrEqual(Math.min(config.baseEjectionMs, config.maxEjectionMs));
        expect(ms).toBeLessThanOrEqual(config.maxEjectionMs);
        expect(ejectionMs(n + 1, config)).toBeGreaterThanOrEqual(ms);
      }),
    );
  });

  it('takes no traffic during an ejection and one probe right after it', () => {
    const config = { consecutiveFailures: 2, baseEjectionMs: 100, maxEjectionMs: 250 };
    let s: BreakerState = INITIAL_BREAKER;
    s = breakerFailure(s, false, 0, config);
    expect(s).toEqual({ state: 'healthy', failures: 1, ejections: 0 });
    s = breakerFailure(s, false, 10, config);
    expect(s).toEqual({ state: 'ejected', until: 110, ejections: 1 });
    expect(breakerDispatch(s, 109)).toBeUndefined();
    const probe = breakerDispatch(s, 110);
    expect(probe).toEqual({ state: { state: 'probing', probeInFlight: true, ejections: 1 }, probe: true });
    s = (probe as { state: BreakerState }).state;
    expect(breakerDispatch(s, 111)).toBeUndefined();
    s = breakerFailure(s, true, 120, config);
    expect(s).toEqual({ state: 'ejected', until: 320, ejections: 2 });
    s = (breakerDispatch(s, 320) as { state: BreakerState }).state;
    s = breakerFailure(s, true, 320, config);
    // Capped: 3 x 100 > 250.
    expect(s).toEqual({ state: 'ejected', until: 570, ejections: 3 });
    s = (breakerDispatch(s, 600) as { state: BreakerState }).state;
    s = breakerSuccess(s, true);
    expect(s).toEqual({ state: 'healthy', failures: 0, ejections: 3 });
  });
});
