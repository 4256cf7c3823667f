import type { TokenCounter } from '../../pipeline/types.ts';
import { mulberry32 } from './prng.ts';

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** `length` characters of seeded random base64 (a data URI's payload): no space, no line end, ~0.75 tokens each. */
export function base64Blob(length: number, seed = 1): string {
  const random = mulberry32(seed);
  const chars = new Array<string>(length);
  for (let i = 0; i < length; i++) chars[i] = BASE64[Math.floor(random() * 64)]!;
  return chars.join('');
}

/**
 * A token counter that meters the characters it is given. Past `limit` characters it throws, so a
 * chunker that counts too much fails at once instead of running for minutes.
 */
export function meteredCounter(inner: TokenCounter, limit = Infinity): TokenCounter & { chars: number; calls: number } {
  const meter = {
    chars: 0,
    calls: 0,
    window: inner.window,
    countTokens(text: string): number {
      meter.chars += text.length;
      meter.calls++;
      if (meter.chars > limit) throw new Error(`counted more than ${limit} characters in ${meter.calls} calls`);
      return inner.countTokens(text);
    },
  };
  return meter;
}
