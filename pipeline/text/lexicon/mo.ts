/**
 * GNU gettext's compiled catalogs (.mo): the message pairs of a translated program, source text and
 * its translation. Pure: a buffer in, pairs out. Format: a header of 32-bit words (magic, revision,
 * count, offset of the originals' table, offset of the translations' table), each table `count`
 * (length, offset) pairs; strings are UTF-8 (the catalogs read here declare it). A plural entry holds
 * its forms NUL-separated, a context is `context\u0004msgid`: the first form and the message are kept.
 */

const MAGIC_LE = 0x950412de;
const MAGIC_BE = 0xde120495;

export interface MessagePair {
  source: string;
  translation: string;
}

export function parseMo(buffer: Buffer): MessagePair[] {
  if (buffer.length < 28) throw new Error('.mo: too short for a header');
  const magic = buffer.readUInt32LE(0);
  const read = magic === MAGIC_LE ? (o: number) => buffer.readUInt32LE(o) : magic === MAGIC_BE ? (o: number) => buffer.readUInt32BE(o) : undefined;
  if (!read) throw new Error(`.mo: bad magic number 0x${magic.toString(16)}`);
  const count = read(8);
  const originals = read(12);
  const translations = read(16);
  const string = (table: number, i: number) => {
    const length = read(table + 8 * i);
    const offset = read(table + 8 * i + 4);
    if (offset + length > buffer.length) throw new Error(`.mo: string ${i} runs past the end`);
    return buffer.toString('utf8', offset, offset + length);
  };
  const pairs: MessagePair[] = [];
  for (let i = 0; i < count; i++) {
    const source = string(originals, i).split('\u0000')[0]!.replace(/^[^\u0004]*\u0004/, '');
    const translation = string(translations, i).split('\u0000')[0]!;
    // The empty msgid holds the catalog's metadata, not a message.
    if (source !== '' && translation !== '') pairs.push({ source, translation });
  }
  return pairs;
}
