/**
 * Why complete() gave up:
 * - deadline: the call's overall deadline passed;
 * - client-error: a 4xx other than 408/429 (not retried; `status` says which);
 * - exhausted: maxAttempts attempts failed (the last failure is in the message);
 * - bad-response: the same, when the last attempt got a reply that is no usable chat completion;
 * - aborted: the caller's signal fired, or the transport was closed.
 */
export type JudgeTransportErrorKind = 'deadline' | 'client-error' | 'exhausted' | 'aborted' | 'bad-response';

export class JudgeTransportError extends Error {
  override readonly name = 'JudgeTransportError';
  readonly kind: JudgeTransportErrorKind;
  readonly status?: number;
  readonly attempts: number;
  readonly endpoint?: string;

  constructor(kind: JudgeTransportErrorKind, message: string, details: { attempts: number; status?: number | undefined; endpoint?: string | undefined }) {
    super(message);
    this.kind = kind;
    this.attempts = details.attempts;
    if (details.status !== undefined) this.status = details.status;
    if (details.endpoint !== undefined) this.endpoint = details.endpoint;
  }
}
