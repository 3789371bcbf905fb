import { createServer, type Server } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';

/** An attribute value as OTLP/JSON carries it, decoded. */
export type AttributeValue = string | number | boolean | AttributeValue[] | undefined;

/** One span as the receiver decoded it from an OTLP/HTTP JSON export. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, AttributeValue>;
  links: { traceId: string; spanId: string }[];
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  scope: string;
  resource: Record<string, AttributeValue>;
}

export interface OtlpReceiver {
  /** The base URL to give as OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans(): ReceivedSpan[];
  /** Waits (up to 15 s) until `done` holds for the spans received so far; returns them. */
  waitFor(done: (spans: ReceivedSpan[]) => boolean, what: string): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

interface JsonAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: JsonAnyValue[] };
}
interface JsonKeyValue {
  key: string;
  value: JsonAnyValue;
}

function decodeValue(v: JsonAnyValue): AttributeValue {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue !== undefined) return (v.arrayValue.values ?? []).map(decodeValue);
  return undefined;
}

function decodeAttributes(list: JsonKeyValue[] | undefined): Record<string, AttributeValue> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, decodeValue(kv.value)]));
}

/**
 * A real OTLP/HTTP receiver (`POST /v1/traces`, the JSON encoding: the server under test runs with
 * `OTEL_EXPORTER_OTLP_PROTOCOL=http/json`), as a collector would be: it keeps every span the
 * exporter sends, decoded. No part of the SDK is replaced.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: ReceivedSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const body: {
        resourceSpans?: {
          resource?: { attributes?: JsonKeyValue[] };
          scopeSpans?: {
            scope?: { name?: string };
            spans?: {
              traceId: string;
              spanId: string;
              parentSpanId?: string;
              name: string;
              kind: number;
              attributes?: JsonKeyValue[];
              links?: { traceId: string; spanId: string }[];
              status?: { code?: number };
            }[];
          }[];
        }[];
      } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const rs of body.resourceSpans ?? []) {
        const resource = decodeAttributes(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? []) {
          for (const span of ss.spans ?? []) {
            received.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? '',
              name: span.name,
              kind: span.kind,
              attributes: decodeAttributes(span.attributes),
              links: (span.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
              statusCode: span.status?.code ?? 0,
              scope: ss.scope?.name ?? '',
              resource,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('receiver not listening');
  const { port } = address;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...received],
    async waitFor(done, what) {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const spans = [...received];
        if (done(spans)) return spans;
        if (Date.now() > deadline)
          throw new Error(`OTLP receiver: timed out waiting for ${what} (${spans.length} spans)`);
        await delay(50);
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A random W3C trace id / span id (lower-case hex). */
export function randomHex(bytes: number): string {
  let out = '';
  for (let i = 0; i < bytes; i++)
    out += Math.floor(Math.random() * 256)
      .toString(16)
      .padStart(2, '0');
  return out;
}
