/**
 * Sets `key` in `map` as its newest entry, then lets the oldest go past `limit` entries: what a
 * page keeps across mounts (a reply scrolled out of the windowed transcript and back), bounded.
 */
export function setNewest<K, V>(map: Map<K, V>, key: K, value: V, limit: number): void {
  map.delete(key)
  map.set(key, value)
  while (map.size > limit) map.delete(map.keys().next().value as K)
}
