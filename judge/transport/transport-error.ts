import type { FailureKind } from './attempt-failure.js';

/**
 * Why complete() gave up:
 * - deadline: the call's deadline passed with every attempt failed or unanswered (transport
 *   faults are retried until then; `last` and the message say what the last attempt met);
 * - client-error: a 4xx other than 408/429 (not retried; `status` says which);
 * - aborted: the caller's signal fired, or the transport was closed.
 */
export type JudgeTransportErrorKind = 'deadline' | 'client-error' | 'aborted';

export class JudgeTransportError extends Error {
  override readonly name = 'JudgeTransportError';
  readonly kind: JudgeTransportErrorKind;
  readonly status?: number;
  readonly attempts: number;
  readonly endpoint?: string;
  /** The last failed attempt's kind (none when no attempt failed, e.g. one still hanging at the deadline). */
  readonly last?: FailureKind;

  constructor(
    kind: JudgeTransportErrorKind,
    message: string,
    details: { attempts: number; status?: number | undefined; endpoint?: string | undefined; last?: FailureKind | undefined },
  ) {
    super(message);
    this.kind = kind;
    this.attempts = details.attempts;
    if (details.status !== undefined) this.status = details.status;
    if (details.endpoint !== undefined) this.endpoint = details.endpoint;
    if (details.last !== undefined) this.last = details.last;
  }
}
