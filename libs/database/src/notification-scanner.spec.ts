import { describe, expect, it } from 'vitest';
import { NotificationScanner } from './notification-scanner.js';

function message(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

function notification(channel: string, payload: string): Buffer {
  const pid = Buffer.alloc(4);
  pid.writeInt32BE(42);
  return message(
    'A',
    Buffer.concat([pid, Buffer.from(`${channel}\0`), Buffer.from(`${payload}\0`, 'utf8')]),
  );
}

const dataRow = message('D', Buffer.from('\0\x01\0\0\0\x05hello A, not a notification'));
const ready = message('Z', Buffer.from('I'));

function scan(chunks: Buffer[]): [string, string][] {
  const seen: [string, string][] = [];
  const scanner = new NotificationScanner((c, p) => seen.push([c, p]));
  for (const c of chunks) scanner.push(c);
  return seen;
}

describe('NotificationScanner', () => {
  const stream = Buffer.concat([
    dataRow,
    notification('principal_changed', 't:1'),
    dataRow,
    notification('principal_changed', 'm:ö:2'),
    ready,
  ]);

  it('finds each notification between other messages, and nothing else', () => {
    expect(scan([stream])).toEqual([
      ['principal_changed', 't:1'],
      ['principal_changed', 'm:ö:2'],
    ]);
  });

  it('finds the same whatever the chunk boundaries (every split point, and byte by byte)', () => {
    for (let cut = 1; cut < stream.length; cut++) {
      expect(scan([stream.subarray(0, cut), stream.subarray(cut)])).toHaveLength(2);
    }
    const bytes = [...stream].map((b) => Buffer.from([b]));
    expect(scan(bytes)).toEqual([
      ['principal_changed', 't:1'],
      ['principal_changed', 'm:ö:2'],
    ]);
  });
});
