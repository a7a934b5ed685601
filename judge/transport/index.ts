export {
  EndpointConfigSchema,
  TransportConfigSchema,
  endpointsFromUrls,
  metricsUrlOf,
  parseTransportConfig,
  type EndpointConfig,
  type EndpointConfigInput,
  type TransportConfig,
  type TransportConfigInput,
} from './endpoint-config.js';
export { OFFICIAL_DECODING, type ChatAnswer, type ChatCall, type ChatMessage, type Decoding, type TokenLogprob } from './chat-call.js';
export { JudgeTransport, type JudgeTransportOptions } from './judge-transport.js';
export { JudgeTransportError, type JudgeTransportErrorKind } from './transport-error.js';
export type { EndpointInfo, TransportEvent, TransportInfo, TransportTotals } from './transport-info.js';
export type { FailureKind } from './attempt-failure.js';
