/**
 * Checksums that tell a real card number or IBAN from a look-alike (an order id, a timestamp, a
 * random code), so redaction keeps false positives low where the format carries a check digit.
 */

/**
 * Luhn (mod 10) over the digits of `text`; `separators` (e.g. `' .-'`) are skipped, anything
 * else fails. Also checks the digit count is within `minDigits`..`maxDigits` (default any).
 */
export function passesLuhn(
  text: string,
  options: { separators?: string; minDigits?: number; maxDigits?: number } = {},
): boolean {
  const { separators = '', minDigits = 1, maxDigits = Number.POSITIVE_INFINITY } = options;
  let sum = 0;
  let count = 0;
  for (let index = text.length - 1; index >= 0; index--) {
    let digit = text.charCodeAt(index) - 48;
    if (digit < 0 || digit > 9) {
      if (separators.includes(text.charAt(index))) continue;
      return false;
    }
    if (count % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    count++;
  }
  return count >= minDigits && count <= maxDigits && sum % 10 === 0;
}

/** IBAN length by country (ISO 13616 registry); a country not listed is not an IBAN. */
// biome-ignore format: a table reads better packed
const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BR: 29, BY: 28,
  CH: 21, CR: 22, CY: 28, CZ: 24, DE: 22, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18,
  FO: 18, FR: 27, GB: 22, GE: 22, GI: 23, GL: 18, GR: 27, GT: 28, HR: 21, HU: 28, IE: 22,
  IL: 23, IQ: 23, IS: 26, IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LC: 32, LI: 21, LT: 20,
  LU: 20, LV: 21, MC: 27, MD: 24, ME: 22, MK: 19, MR: 27, MT: 31, MU: 30, NL: 18, NO: 15,
  PK: 24, PL: 28, PS: 29, PT: 25, QA: 29, RO: 24, RS: 22, SA: 24, SC: 31, SE: 24, SI: 19,
  SK: 24, SM: 27, ST: 25, SV: 28, TL: 23, TN: 24, TR: 26, UA: 29, VA: 22, VG: 24, XK: 20,
};

/**
 * ISO 13616 check: the country's length, then mod 97 of the rearranged number equals 1.
 * Spaces are ignored; anything but A-Z and 0-9 fails.
 */
export function passesIbanChecksum(iban: string): boolean {
  const compact = iban.replace(/ /g, '');
  const expected = IBAN_LENGTHS[compact.slice(0, 2)];
  if (expected === undefined || compact.length !== expected) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let remainder = 0;
  for (let index = 0; index < rearranged.length; index++) {
    const code = rearranged.charCodeAt(index);
    if (code >= 48 && code <= 57) {
      remainder = (remainder * 10 + (code - 48)) % 97;
    } else if (code >= 65 && code <= 90) {
      // A letter counts as two digits, A = 10 ... Z = 35.
      remainder = (remainder * 100 + (code - 55)) % 97;
    } else {
      return false;
    }
  }
  return remainder === 1;
}
