import { createServer, type Server, type Socket } from 'node:net';

export type Mode = 'accept' | 'reject' | 'hang';

/** A minimal SMTP server for tests: accepts, rejects (554 on MAIL FROM) or never greets (hang). */
export class FakeSmtp {
  mode: Mode = 'accept';
  readonly received: string[] = [];
  private readonly sockets = new Set<Socket>();
  private constructor(private readonly server: Server) {}

  static async start(): Promise<FakeSmtp> {
    let fake: FakeSmtp | undefined;
    const server = createServer((socket) => fake!.handle(socket));
    fake = new FakeSmtp(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get port(): number {
    const a = this.server.address();
    return typeof a === 'object' && a !== null ? a.port : 0;
  }

  private handle(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    if (this.mode === 'hang') return;
    const mode = this.mode;
    let data: string[] | undefined;
    let buffer = '';
    socket.write('220 fake.test ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      let i: number;
      while ((i = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        if (data !== undefined) {
          if (line === '.') {
            // Undo quoted-printable soft line breaks so the text can be searched.
            this.received.push(data.join('\n').replace(/=\n/g, ''));
            data = undefined;
            socket.write('250 2.0.0 queued\r\n');
          } else data.push(line);
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250 fake.test\r\n');
        else if (verb === 'MAIL')
          socket.write(mode === 'reject' ? '554 5.7.1 relaying denied\r\n' : '250 2.1.0 ok\r\n');
        else if (verb === 'RCPT') socket.write('250 2.1.5 ok\r\n');
        else if (verb === 'DATA') {
          data = [];
          socket.write('354 go ahead\r\n');
        } else if (verb === 'QUIT') socket.end('221 2.0.0 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
