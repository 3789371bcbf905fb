import { request as httpRequest } from 'node:http';

export interface RawHttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One HTTP/1.1 request with the request target and headers exactly as given (a Host that fetch
 * would not send, an absolute-form target, a percent-encoded path), on its own connection.
 */
export function rawHttp(
  baseUrl: string,
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawHttpResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        hostname: hostname.replace(/^\[|\]$/g, ''),
        port,
        method,
        path: target,
        setHost: !Object.keys(headers).some((h) => h.toLowerCase() === 'host'),
        headers: { connection: 'close', ...headers },
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
