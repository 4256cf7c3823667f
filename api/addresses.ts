import { BlockList } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Whether only this machine can reach a bound address: 127.0.0.0/8, ::1, or IPv4 loopback mapped into IPv6. */
export function isLoopback(address: string): boolean {
  const v4 = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return v4.includes('.') ? LOOPBACK.check(v4, 'ipv4') : LOOPBACK.check(address, 'ipv6');
}
