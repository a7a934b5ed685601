export { startServer, type RunningServer } from './server.js';
export { parseServeConfig, ServeConfigSchema, DEFAULT_PORT, isLoopback, type ServeConfig, type ServeConfigInput } from './serve-config.js';
export { ServiceLimitsSchema, type ServiceLimits, type ServiceLimitsInput } from './limits.js';
export { RpcErrorCode } from './rpc-errors.js';
export { RpcEndpoint, type RpcReply } from './rpc-endpoint.js';
export { ServiceContext } from './service-context.js';
export { METHOD_NAMES } from './methods.js';
export { createLogger, silentLogger, type Logger, type LogLevel } from './logger.js';
export { rubricIdOf } from './rubric-cache.js';
