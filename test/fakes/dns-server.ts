/**
 * A fake authoritative DNS server on UDP 127.0.0.1 (packets through dns-packet): answers A, AAAA, MX, NS, TXT,
 * CNAME and CAA from a zone map, NOERROR with no answer for a known name without that type, NXDOMAIN for an
 * unknown name, and SERVFAIL for everything while `fail(true)`.
 */
import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import dnsPacket, { type Answer } from 'dns-packet';

export type Zone = Record<string, Partial<Record<string, unknown[]>>>;

export interface FakeDns {
  /** `127.0.0.1:port`, for DNS_SERVERS. */
  server: string;
  queries: Array<{ name: string; type: string }>;
  fail(on: boolean): void;
  close(): Promise<void>;
}

export async function startFakeDns(zone: Zone): Promise<FakeDns> {
  const socket = createSocket('udp4');
  const queries: FakeDns['queries'] = [];
  let failing = false;
  socket.on('message', (msg, rinfo) => {
    const query = dnsPacket.decode(msg);
    const question = query.questions?.[0];
    if (!question) return;
    queries.push({ name: question.name, type: question.type });
    const records = zone[question.name.toLowerCase()];
    const data = records?.[question.type] ?? [];
    const rcode = failing ? 'SERVFAIL' : records ? 'NOERROR' : 'NXDOMAIN';
    const answers = failing
      ? []
      : data.map(
          (d) => ({ type: question.type, class: 'IN', name: question.name, ttl: 300, data: d }) as Answer,
        );
    const reply = dnsPacket.encode({
      id: query.id,
      type: 'response',
      flags:
        dnsPacket.AUTHORITATIVE_ANSWER |
        (query.flags ?? 0) |
        (rcode === 'SERVFAIL' ? 2 : rcode === 'NXDOMAIN' ? 3 : 0),
      questions: [question],
      answers,
    });
    socket.send(reply, rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address() as AddressInfo;
  return {
    server: `127.0.0.1:${port}`,
    queries,
    fail(on) {
      failing = on;
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
