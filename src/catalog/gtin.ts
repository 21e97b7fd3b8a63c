/**
 * GTINs (GS1's trade item numbers: GTIN-8, -12, -13, -14) as the catalog keeps them: 14 digits, shorter ones padded
 * with leading zeros as GS1 prescribes, so that the EAN-13 `8001234567891` in the catalog and the GTIN-14
 * `08001234567891` in an order are one number.
 */
export function normaliseGtin(text: string): string | undefined {
  const t = text.trim();
  if (!/^(?:\d{8}|\d{12,14})$/.test(t)) return undefined;
  const gtin = t.padStart(14, '0');
  return checkDigitOk(gtin) ? gtin : undefined;
}

/** GS1's mod-10 check digit: weights 3 and 1 alternating from the right, the check digit excluded. */
function checkDigitOk(gtin14: string): boolean {
  let sum = 0;
  for (let i = 0; i < 13; i++) sum += Number(gtin14[i]) * (i % 2 === 0 ? 3 : 1);
  return (10 - (sum % 10)) % 10 === Number(gtin14[13]);
}
