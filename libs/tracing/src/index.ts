export {
  annotateActiveSpan,
  capturesToolContent,
  currentTraceId,
  detachUnsampled,
  errorType,
  inSpan,
  inSpanAsync,
  nameHttpSpansByRoute,
  outsideTraces,
  parentContext,
  serverTracer,
  traceLogFields,
  tracingActive,
  TRACER_NAME,
} from './spans.js';
export { startTracing } from './start-tracing.js';
export type { RunningTracing, TracingSettings } from './tracing-settings.js';
