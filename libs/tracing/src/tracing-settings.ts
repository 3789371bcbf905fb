/** What the server tells the tracing SDK about itself. */
export interface TracingSettings {
  /** `service.name` unless `OTEL_SERVICE_NAME` says otherwise. */
  serviceName: string;
  /** `service.version`: the package version. */
  serviceVersion: string;
  /**
   * Opt-in: `tools/call` spans carry the call's arguments and result (`gen_ai.tool.call.arguments`,
   * `gen_ai.tool.call.result`), request data. Off unless the configuration says so.
   */
  captureToolContent: boolean;
}

/** Stops tracing: the spans still buffered are exported first. */
export interface RunningTracing {
  shutdown(): Promise<void>;
}
