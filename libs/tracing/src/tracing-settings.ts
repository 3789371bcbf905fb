/** What the server tells the tracing SDK about itself. */
export interface TracingSettings {
  /** `service.name` unless `OTEL_SERVICE_NAME` says otherwise. */
  serviceName: string;
  /** `service.version`: the package version. */
  serviceVersion: string;
}

/** Stops tracing: the spans still buffered are exported first. */
export interface RunningTracing {
  shutdown(): Promise<void>;
}
