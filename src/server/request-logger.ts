/**
 * A request's logger: the server's, with the request id bound. The pino child is made on the
 * first line written at an enabled level, not for every request: most requests write only
 * their access line, which `recordAccess` writes through the server's logger.
 */
import type { Logger } from 'pino';

const noop = () => {};

export function requestLogger(parent: Logger, requestId: string): Logger {
  let child: Logger | undefined;
  // The target is a blank object, not `parent`: a proxy must answer a target's fixed
  // properties as the target does, and this one answers the child's.
  return new Proxy({} as Logger, {
    get(_target, property) {
      if (
        typeof property === 'string' &&
        property in parent.levels.values &&
        !parent.isLevelEnabled(property)
      ) {
        return noop;
      }
      child ??= parent.child({ requestId });
      const value: unknown = Reflect.get(child, property, child);
      return typeof value === 'function' ? value.bind(child) : value;
    },
  });
}
