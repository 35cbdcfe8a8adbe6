import { describe, expect, it } from 'vitest';
import { passesIbanChecksum, passesLuhn } from './checksums.js';

describe('passesLuhn', () => {
  it('accepts card numbers and refuses a changed digit or non-digits', () => {
    for (const card of [
      '4111111111111111',
      '5555555555554444',
      '378282246310005',
      '6011111111111117',
    ]) {
      expect(passesLuhn(card), card).toBe(true);
    }
    expect(passesLuhn('4111111111111112')).toBe(false);
    expect(passesLuhn('4111 1111 1111 1111')).toBe(false);
    expect(passesLuhn('')).toBe(false);
  });
});

describe('passesIbanChecksum', () => {
  it('accepts registry examples, grouped or not', () => {
    for (const iban of [
      'DE89370400440532013000',
      'GB82WEST12345698765432',
      'FR1420041010050500013M02606',
      'NL91ABNA0417164300',
      'DE89 3704 0044 0532 0130 00',
    ]) {
      expect(passesIbanChecksum(iban), iban).toBe(true);
    }
  });

  it('refuses a wrong check digit, a wrong length, an unknown country and lower case', () => {
    expect(passesIbanChecksum('DE89370400440532013001')).toBe(false);
    expect(passesIbanChecksum('DE8937040044053201300')).toBe(false);
    expect(passesIbanChecksum('ZZ89370400440532013000')).toBe(false);
    expect(passesIbanChecksum('gb82west12345698765432')).toBe(false);
  });
});
