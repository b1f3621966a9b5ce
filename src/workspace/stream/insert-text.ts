/**
 * New text becomes bytes for a streamed edit: UTF-8, refused (like encodeText refuses it) when it holds an
 * unpaired surrogate, which no UTF-8 file can hold and Buffer.from would silently turn into U+FFFD.
 */
import { EditgateError } from '../../core/errors.js';

const SURROGATE = /[\uD800-\uDFFF]/;

export function encodeInsert(text: string): Buffer {
  const index = SURROGATE.test(text) ? firstLoneSurrogate(text) : -1;
  if (index !== -1) {
    throw new EditgateError(
      'ENCODING',
      `The text contains an unpaired UTF-16 surrogate (\\u${text.charCodeAt(index).toString(16).toUpperCase().padStart(4, '0')}) at character ${index}, which no Unicode file can hold. Remove it or write the intended character instead.`,
      { encoding: 'utf8', index },
    );
  }
  return Buffer.from(text, 'utf8');
}

/** The text has a UTF-16 surrogate without its partner. */
export function hasLoneSurrogate(text: string): boolean {
  return SURROGATE.test(text) && firstLoneSurrogate(text) !== -1;
}

function firstLoneSurrogate(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return i;
    }
    if (c >= 0xdc00 && c <= 0xdfff) return i;
  }
  return -1;
}
