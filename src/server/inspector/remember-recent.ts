/**
 * The inspector's per-session memories are small LRU maps: a `Map` keeps insertion order, so an
 * entry set again moves to the end and the first key is the least recently used.
 */
export function rememberRecent<V>(map: Map<string, V>, key: string, value: V, most: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > most) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}
