export {
  annotateActiveSpan,
  capturesToolContent,
  currentTraceId,
  detachUnsampled,
  errorType,
  inSpan,
  inSpanAsync,
  markFailed,
  nameHttpSpansByRoute,
  outsideTraces,
  parentContext,
  serverTracer,
  startServerSpan,
  traceLogFields,
  tracingActive,
  TRACER_NAME,
  type ServerSpan,
} from './spans.js';
export { startTracing } from './start-tracing.js';
export type { RunningTracing, TracingSettings } from './tracing-settings.js';
