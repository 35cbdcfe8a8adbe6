/**
 * `1204` as `1,204`, as `toLocaleString('en-US')` writes it, without its cost: the first
 * `Intl` call of a process loads ICU's locale data (~15 ms of CPU, a tenth of a replay's
 * start-up). Integers are grouped here; any other number goes to `toLocaleString`.
 */
export function groupDigits(value: number): string {
  if (!Number.isSafeInteger(value) || Object.is(value, -0)) return value.toLocaleString('en-US');
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
