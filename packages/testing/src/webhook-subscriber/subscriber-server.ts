/**
 * A subscriber on loopback for outbound-event (webhook) tests: it verifies each request with the
 * `standardwebhooks` package (the reference implementation a real subscriber would use) and
 * answers the status the test sets.
 * @module
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedMessage {
  headers: IncomingHttpHeaders;
  body: string;
  /** The parsed body when the signature verified with the current secret; `null` when it did not. */
  verified: unknown;
  verifyError: string | null;
}

export interface WebhookSubscriber {
  /** Where to deliver: `http://127.0.0.1:<port>/hooks`. */
  readonly url: string;
  /** Every request received, in order. */
  readonly received: ReceivedMessage[];
  /** The signing secret (`whsec_…`) to verify with from now on. */
  useSecret(value: string): void;
  /** Statuses to answer, one per request; the last repeats (a 3xx redirects to a metadata address). */
  answer(...next: number[]): void;
  close(): Promise<void>;
}

/** Starts a subscriber on a free loopback port; it answers 200 until told otherwise. */
export async function startSubscriber(): Promise<WebhookSubscriber> {
  const received: ReceivedMessage[] = [];
  let secret: string | null = null;
  /** Statuses to answer, one per request; the last repeats. */
  let statuses: number[] = [200];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let verified: unknown = null;
      let verifyError: string | null = null;
      try {
        verified = new Webhook(secret ?? 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw').verify(body, request.headers as Record<string, string>);
      } catch (error) {
        verifyError = (error as Error).message;
      }
      received.push({ headers: request.headers, body, verified, verifyError });
      const status = statuses.length > 1 ? (statuses.shift() as number) : (statuses[0] as number);
      response.writeHead(status, status >= 300 && status < 400 ? { location: 'http://169.254.169.254/' } : {});
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    useSecret(value: string) {
      secret = value;
    },
    answer(...next: number[]) {
      statuses = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
